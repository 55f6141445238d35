package io.redeq.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link TopicOverrides}: {@code redeq.topics.<topic>.*} with dotted topic
 * names, written plain or in brackets.
 */
class TopicOverridesTests {

	@Test
	void readsDottedAndBracketedTopicNames() {
		MockEnvironment environment = new MockEnvironment().withProperty("redeq.topics.order.timeout.concurrency", "8")
			.withProperty("redeq.topics.order.timeout.timeout", "30s")
			.withProperty("redeq.topics[reminder.email].max-attempts", "5")
			.withProperty("redeq.topics[reminder.email].backoff.initial", "3s")
			.withProperty("redeq.topics.plain.backoff.max", "1h")
			.withProperty("redeq.topics.mail.send.rate-limit", "100/1s");
		Map<String, RedeqProperties.Topic> topics = TopicOverrides.resolve(environment, new RedeqProperties());
		assertThat(topics).containsOnlyKeys("order.timeout", "reminder.email", "plain", "mail.send");
		assertThat(topics.get("mail.send").getRateLimit()).isEqualTo("100/1s");
		assertThat(topics.get("order.timeout").getConcurrency()).isEqualTo(8);
		assertThat(topics.get("order.timeout").getTimeout()).isEqualTo(Duration.ofSeconds(30));
		assertThat(topics.get("reminder.email").getMaxAttempts()).isEqualTo(5);
		assertThat(topics.get("reminder.email").getBackoff().getInitial()).isEqualTo(Duration.ofSeconds(3));
		assertThat(topics.get("plain").getBackoff().getMax()).isEqualTo(Duration.ofHours(1));
	}

	@Test
	void readsForwardSettingsOfADottedTopic() {
		MockEnvironment environment = new MockEnvironment()
			.withProperty("redeq.topics.push.remind.forward.exchange", "push")
			.withProperty("redeq.topics.push.remind.forward.routing-key", "remind")
			.withProperty("redeq.topics.queue.only.forward.routing-key", "reminders");
		Map<String, RedeqProperties.Topic> topics = TopicOverrides.resolve(environment, new RedeqProperties());
		assertThat(topics).containsOnlyKeys("push.remind", "queue.only");
		assertThat(topics.get("push.remind").getForward().getExchange()).isEqualTo("push");
		assertThat(topics.get("push.remind").getForward().getRoutingKey()).isEqualTo("remind");
		assertThat(topics.get("push.remind").getForward().isConfigured()).isTrue();
		assertThat(topics.get("queue.only").getForward().getExchange()).isNull();
		assertThat(topics.get("queue.only").getForward().isConfigured()).isTrue();
	}

	@Test
	void aTopicNamedLikeASettingIsStillATopic() {
		MockEnvironment environment = new MockEnvironment().withProperty("redeq.topics.backoff.backoff.max", "1m")
			.withProperty("redeq.topics.timeout.timeout", "5s");
		Map<String, RedeqProperties.Topic> topics = TopicOverrides.resolve(environment, new RedeqProperties());
		assertThat(topics).containsOnlyKeys("backoff", "timeout");
		assertThat(topics.get("backoff").getBackoff().getMax()).isEqualTo(Duration.ofMinutes(1));
		assertThat(topics.get("timeout").getTimeout()).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void ignoresKeysThatNameNoSetting() {
		MockEnvironment environment = new MockEnvironment().withProperty("redeq.topics.order.colour", "red")
			.withProperty("redeq.consumer.concurrency", "2");
		assertThat(TopicOverrides.resolve(environment, new RedeqProperties())).isEmpty();
	}

	@Test
	void keepsTopicsSetOnThePropertiesObjectUnlessTheEnvironmentSetsThem() {
		RedeqProperties properties = new RedeqProperties();
		RedeqProperties.Topic direct = new RedeqProperties.Topic();
		direct.setConcurrency(2);
		properties.getTopics().put("direct", direct);
		RedeqProperties.Topic shadowed = new RedeqProperties.Topic();
		shadowed.setConcurrency(3);
		properties.getTopics().put("both", shadowed);
		MockEnvironment environment = new MockEnvironment().withProperty("redeq.topics.both.concurrency", "4");
		Map<String, RedeqProperties.Topic> topics = TopicOverrides.resolve(environment, properties);
		assertThat(topics.get("direct").getConcurrency()).isEqualTo(2);
		assertThat(topics.get("both").getConcurrency()).isEqualTo(4);
	}

}
