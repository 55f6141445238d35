package io.redeq.spring.boot.autoconfigure;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;

import io.redeq.spring.RedeqListener;
import io.redeq.spring.internal.forward.ForwardTarget;
import io.redeq.spring.internal.forward.InvalidRedeqForwardException;
import io.redeq.spring.internal.forward.RabbitForwarders;
import io.redeq.spring.internal.listener.InvalidRedeqListenerException;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Startup of an application that forwards a topic to RabbitMQ: what it needs, and the
 * message when something is missing. No broker runs: a RabbitTemplate connects only when
 * it first sends.
 */
@RedisTest
class RabbitForwardStartupIntegrationTests {

	private final ApplicationContextRunner runner;

	private final RedisServer redis;

	RabbitForwardStartupIntegrationTests(RedisServer redis) {
		this.redis = redis;
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"spring.rabbitmq.port=1", "redeq.topics.push.remind.forward.exchange=push",
					"redeq.topics.push.remind.forward.routing-key=remind");
	}

	@Test
	void withConfirmsAndReturnsTheTopicIsForwarded() {
		this.runner.withConfiguration(AutoConfigurations.of(RabbitAutoConfiguration.class))
			.withPropertyValues("spring.rabbitmq.publisher-confirm-type=correlated",
					"spring.rabbitmq.publisher-returns=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RabbitForwarders.class).targets())
					.containsExactlyEntriesOf(Map.of("push.remind", new ForwardTarget("push", "remind")));
				assertThat(context.getBean(RabbitForwarders.class).subscription("push.remind")).isNotNull();
			});
	}

	@Test
	void withoutPublisherConfirmsStartupFailsNamingTheSettings() {
		this.runner.withConfiguration(AutoConfigurations.of(RabbitAutoConfiguration.class)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidRedeqForwardException.class)
				.hasMessageContaining("[push.remind]")
				.hasMessageContaining("correlated publisher confirms, publisher returns");
			FailureAnalysis analysis = new InvalidRedeqForwardFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getAction()).contains("spring.rabbitmq.publisher-confirm-type=correlated")
				.contains("spring.rabbitmq.publisher-returns=true");
		});
	}

	@Test
	void aTemplateThatIsNotMandatoryFailsStartup() {
		this.runner.withConfiguration(AutoConfigurations.of(RabbitAutoConfiguration.class))
			.withPropertyValues("spring.rabbitmq.publisher-confirm-type=correlated",
					"spring.rabbitmq.publisher-returns=true", "spring.rabbitmq.template.mandatory=false")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidRedeqForwardException.class)
				.hasMessageContaining("mandatory publishing on the RabbitTemplate"));
	}

	@Test
	void withoutARabbitTemplateStartupFailsNamingTheTopic() {
		this.runner.run((context) -> assertThat(context.getStartupFailure()).rootCause()
			.isInstanceOf(InvalidRedeqForwardException.class)
			.hasMessageContaining("[push.remind]")
			.hasMessageContaining("no RabbitTemplate bean"));
	}

	@Test
	void withoutSpringAmqpStartupFailsNamingTheTopicAndTheDependency() {
		this.runner.withClassLoader(new FilteredClassLoader(RabbitTemplate.class)).run((context) -> {
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidRedeqForwardException.class)
				.hasMessageContaining("[push.remind]")
				.hasMessageContaining("Spring AMQP is not on the classpath");
			assertThat(new InvalidRedeqForwardFailureAnalyzer().analyze(context.getStartupFailure()).getAction())
				.contains("spring-boot-starter-amqp");
		});
	}

	@Test
	void aListenerOfAForwardedTopicFailsStartup() {
		this.runner.withConfiguration(AutoConfigurations.of(RabbitAutoConfiguration.class))
			.withPropertyValues("spring.rabbitmq.publisher-confirm-type=correlated",
					"spring.rabbitmq.publisher-returns=true")
			.withBean(RemindListener.class)
			.run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
				.isInstanceOf(InvalidRedeqListenerException.class)
				.hasMessageContaining("RemindListener")
				.hasMessageContaining("topic 'push.remind', whose jobs are forwarded to RabbitMQ")
				.hasMessageContaining("redeq.topics.push.remind.forward.*"));
	}

	@Test
	void aProducerOnlyApplicationForwardsNothingAndNeedsNoBroker() {
		this.runner.withPropertyValues("redeq.consumer.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(RabbitForwarders.class);
		});
	}

	@Test
	void withoutForwardedTopicsNothingIsRequiredOfSpringAmqp() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "redeq.topics.other.concurrency=2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RabbitForwarders.class).targets()).isEmpty();
			});
	}

	static class RemindListener {

		@RedeqListener(topic = "push.remind")
		void remind(String payload) {
		}

	}

}
