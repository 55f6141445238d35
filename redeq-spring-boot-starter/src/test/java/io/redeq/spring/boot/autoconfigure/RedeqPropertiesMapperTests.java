package io.redeq.spring.boot.autoconfigure;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

import io.redeq.Backoff;
import io.redeq.Recurring;
import io.redeq.RedeqOptions;
import io.redeq.SubscriptionOptions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RedeqPropertiesMapper}: every property reaches the core's options, and
 * a refused value is reported against the property that set it.
 */
class RedeqPropertiesMapperTests {

	@Test
	void defaultPropertiesGiveTheDefaultOptions() {
		assertThat(RedeqPropertiesMapper.options(new RedeqProperties())).usingRecursiveComparison()
			.isEqualTo(RedeqOptions.builder().build());
	}

	@Test
	void everyPropertyReachesTheOptions() {
		RedeqProperties properties = new RedeqProperties();
		properties.setPrefix("shop");
		properties.setBuckets(4);
		properties.setMaxPending(500);
		properties.setMaxPayloadSize(DataSize.ofKilobytes(2));
		properties.setShutdownTimeout(Duration.ofSeconds(4));
		properties.setCommandTimeout(Duration.ofSeconds(3));
		properties.setStatsRefreshInterval(Duration.ofSeconds(2));
		properties.getMigrator().setEnabled(false);
		properties.getMigrator().setBatchSize(50);
		properties.getMigrator().setSweepInterval(Duration.ofSeconds(3));
		properties.getMigrator().setLockTtl(Duration.ofSeconds(30));
		properties.getConsumer().setConcurrency(7);
		properties.getConsumer().setTimeout(Duration.ofSeconds(45));
		properties.getConsumer().setMaxAttempts(9);
		properties.getConsumer().setBlocking(false);
		properties.getConsumer().setPollInterval(Duration.ofMillis(250));
		properties.getRedis().setProxyMode(true);
		properties.getConsumer().getBackoff().setInitial(Duration.ofSeconds(2));
		properties.getConsumer().getBackoff().setMultiplier(3.0);
		properties.getConsumer().getBackoff().setMax(Duration.ofMinutes(1));
		properties.getConsumer().getBackoff().setJitter(0.0);
		properties.getDeadLetter().setRetention(Duration.ofDays(1));
		properties.getDurability().setWaitReplicas(1);
		properties.getDurability().setWaitTimeout(Duration.ofMillis(200));
		RedeqOptions expected = RedeqOptions.builder()
			.prefix("shop")
			.buckets(4)
			.maxPending(500)
			.maxPayloadSize(2048)
			.migratorEnabled(false)
			.batchSize(50)
			.sweepInterval(Duration.ofSeconds(3))
			.lockTtl(Duration.ofSeconds(30))
			.concurrency(7)
			.timeout(Duration.ofSeconds(45))
			.maxAttempts(9)
			.backoff(new Backoff(Duration.ofSeconds(2), 3.0, Duration.ofMinutes(1), 0.0))
			.blocking(false)
			.pollInterval(Duration.ofMillis(250))
			.proxyMode(true)
			.shutdownTimeout(Duration.ofSeconds(4))
			.deadLetterRetention(Duration.ofDays(1))
			.commandTimeout(Duration.ofSeconds(3))
			.statsRefreshInterval(Duration.ofSeconds(2))
			.waitReplicas(1)
			.waitTimeout(Duration.ofMillis(200))
			.build();
		assertThat(RedeqPropertiesMapper.options(properties)).usingRecursiveComparison().isEqualTo(expected);
	}

	@Test
	void refusedValueNamesThePropertyItsValueAndTheRule() {
		RedeqProperties properties = new RedeqProperties();
		properties.setBuckets(10);
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> RedeqPropertiesMapper.options(properties))
			.satisfies((ex) -> {
				assertThat(ex.getName()).isEqualTo("redeq.buckets");
				assertThat(ex.getValue()).isEqualTo(10);
				assertThat(ex.getReason()).isEqualTo("must be a power of two between 1 and 1024");
			});
	}

	@Test
	void refusedValueKeepsThePropertysOwnType() {
		RedeqProperties properties = new RedeqProperties();
		properties.setMaxPayloadSize(DataSize.ofBytes(0));
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> RedeqPropertiesMapper.options(properties))
			.satisfies((ex) -> {
				assertThat(ex.getName()).isEqualTo("redeq.max-payload-size");
				assertThat(ex.getValue()).isEqualTo(DataSize.ofBytes(0));
			});
	}

	@Test
	void refusedBackoffComponentNamesItsOwnProperty() {
		RedeqProperties properties = new RedeqProperties();
		properties.getConsumer().getBackoff().setMultiplier(0.5);
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> RedeqPropertiesMapper.options(properties))
			.satisfies((ex) -> {
				assertThat(ex.getName()).isEqualTo("redeq.consumer.backoff.multiplier");
				assertThat(ex.getValue()).isEqualTo(0.5);
				assertThat(ex.getReason()).isEqualTo("must be a finite number >= 1.0");
			});
		properties.getConsumer().getBackoff().setMultiplier(2.0);
		properties.getConsumer().getBackoff().setMax(Duration.ofMillis(100));
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> RedeqPropertiesMapper.options(properties))
			.satisfies((ex) -> {
				assertThat(ex.getName()).isEqualTo("redeq.consumer.backoff.max");
				assertThat(ex.getReason()).isEqualTo("must not be shorter than backoff.initial (PT1S)");
			});
	}

	@Test
	void topicOptionsSetOnlyWhatTheTopicSets() {
		RedeqProperties.Topic topic = new RedeqProperties.Topic();
		topic.setConcurrency(8);
		RedeqOptions engine = RedeqOptions.builder().maxAttempts(4).build();
		SubscriptionOptions options = RedeqPropertiesMapper
			.topicOptions("order.timeout", topic, new RedeqProperties.Backoff())
			.build();
		assertThat(options.concurrency(engine)).isEqualTo(8);
		assertThat(options.maxAttempts(engine)).isEqualTo(4);
		assertThat(options.timeout(engine)).isEqualTo(engine.timeout());
		assertThat(options.backoff(engine)).isEqualTo(engine.backoff());
	}

	@Test
	void aTopicsRateLimitIsReadAndABadOneNamesThePropertyAndTheValue() {
		RedeqProperties.Topic topic = new RedeqProperties.Topic();
		topic.setRateLimit("100/1s");
		SubscriptionOptions options = RedeqPropertiesMapper
			.topicOptions("mail.send", topic, new RedeqProperties.Backoff())
			.build();
		assertThat(options.rateLimitPermits()).isEqualTo(100);
		assertThat(options.rateLimitWindow()).isEqualTo(Duration.ofSeconds(1));
		assertThat(RedeqPropertiesMapper
			.topicOptions("mail.send", new RedeqProperties.Topic(), new RedeqProperties.Backoff())
			.build()
			.rateLimitPermits()).isNull();

		topic.setRateLimit("100 per second");
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> RedeqPropertiesMapper.topicOptions("mail.send", topic, new RedeqProperties.Backoff()))
			.satisfies((ex) -> {
				assertThat(ex.getName()).isEqualTo("redeq.topics.mail.send.rate-limit");
				assertThat(ex.getValue()).isEqualTo("100 per second");
				assertThat(ex.getReason()).contains("such as 100/1s");
			});
		topic.setRateLimit("0/1s");
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> RedeqPropertiesMapper.topicOptions("mail.send", topic, new RedeqProperties.Backoff()))
			.withMessageContaining("redeq.topics.mail.send.rate-limit")
			.withMessageContaining("between 1 and 1000000");
	}

	@Test
	void topicBackoffFillsItsGapsFromTheConsumerBackoff() {
		RedeqProperties.Topic topic = new RedeqProperties.Topic();
		topic.getBackoff().setInitial(Duration.ofSeconds(3));
		RedeqProperties.Backoff consumer = new RedeqProperties.Backoff();
		consumer.setMultiplier(4.0);
		SubscriptionOptions options = RedeqPropertiesMapper.topicOptions("t", topic, consumer).build();
		assertThat(options.backoff(RedeqOptions.builder().build()))
			.isEqualTo(new Backoff(Duration.ofSeconds(3), 4.0, Duration.ofMinutes(10), 0.2));
	}

	@Test
	void refusedTopicValueNamesTheTopicsProperty() {
		RedeqProperties.Topic topic = new RedeqProperties.Topic();
		topic.setConcurrency(0);
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> RedeqPropertiesMapper.topicOptions("order.timeout", topic, new RedeqProperties.Backoff()))
			.satisfies((ex) -> {
				assertThat(ex.getName()).isEqualTo("redeq.topics.order.timeout.concurrency");
				assertThat(ex.getValue()).isEqualTo(0);
				assertThat(ex.getReason()).isEqualTo("must be at least 1");
			});
		RedeqProperties.Topic jittery = new RedeqProperties.Topic();
		jittery.getBackoff().setJitter(2.0);
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> RedeqPropertiesMapper.topicOptions("mail", jittery, new RedeqProperties.Backoff()))
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("redeq.topics.mail.backoff.jitter"));
	}

	@Test
	void propertiesListenerDefaultsRefuseABadTopicAtOnce() {
		RedeqProperties.Topic topic = new RedeqProperties.Topic();
		topic.setTimeout(Duration.ofSeconds(-1));
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> new PropertiesListenerDefaults(Map.of("t", topic), new RedeqProperties.Backoff()))
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("redeq.topics.t.timeout"));
	}

	@Test
	void recurringJobsAreBuiltFromTheirKeysWithTheIdOfTheirKey() {
		RedeqProperties properties = new RedeqProperties();
		RedeqProperties.RecurringJob daily = new RedeqProperties.RecurringJob();
		daily.setTopic("report.daily");
		daily.setCron("0 0 9 * * MON-FRI");
		daily.setZone(ZoneId.of("Europe/Berlin"));
		daily.setPayload("{\"name\":\"sales\"}");
		properties.getRecurring().put("daily-sales", daily);

		List<Recurring> recurring = RedeqPropertiesMapper.recurring(properties, JsonMapper.builder().build());

		assertThat(recurring).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo("daily-sales");
			assertThat(job.topic()).isEqualTo("report.daily");
			assertThat(job.cron()).isEqualTo("0 0 9 * * MON-FRI");
			assertThat(job.zone()).isEqualTo(ZoneId.of("Europe/Berlin"));
			assertThat(job.missed()).isEqualTo(Recurring.Missed.RUN_ONCE);
			assertThat(job.payload()).hasToString("{\"name\":\"sales\"}");
		});
	}

	@Test
	void aBadRecurringJobIsReportedAgainstItsKey() {
		RedeqProperties.RecurringJob job = new RedeqProperties.RecurringJob();
		job.setTopic("report");
		job.setCron("61 * * * * *");
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> recurring("bad-cron", job))
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("redeq.recurring.bad-cron"))
			.withMessageContaining("'61 * * * * *'");

		job.setCron("0 * * * * *");
		job.setPayload("{not json");
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> recurring("bad-payload", job))
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("redeq.recurring.bad-payload.payload"));

		job.setTopic(null);
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> recurring("no-topic", job))
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("redeq.recurring.no-topic.topic"));
	}

	private static List<Recurring> recurring(String id, RedeqProperties.RecurringJob job) {
		RedeqProperties properties = new RedeqProperties();
		properties.getRecurring().put(id, job);
		return RedeqPropertiesMapper.recurring(properties, JsonMapper.builder().build());
	}

}
