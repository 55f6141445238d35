package io.redeq.spring.boot.autoconfigure;

import java.lang.reflect.Proxy;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.spring.listener.RedeqListenerEndpointRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conditions and property validation of {@link RedeqAutoConfiguration} that fail or back
 * off before redeq talks to Redis. Everything that builds a running engine is in
 * {@link RedeqAutoConfigurationIntegrationTests}, against a real redis-server.
 */
class RedeqAutoConfigurationTests {

	// Port 1 never answers: a test that reached Redis by mistake would fail, not pass.
	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.port=1");

	@Test
	void disabledCreatesNoBeans() {
		this.runner.withPropertyValues("redeq.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(Redeq.class);
			assertThat(context).doesNotHaveBean(RedeqClient.class);
			assertThat(context).doesNotHaveBean(RedeqAdmin.class);
			assertThat(context).doesNotHaveBean(RedeqListenerEndpointRegistry.class);
		});
	}

	@Test
	void bucketsNotAPowerOfTwoFailsNamingKeyValueAndAllowedValues() {
		assertInvalid("redeq.buckets=10", "redeq.buckets must be a power of two between 1 and 1024, but was 10",
				"redeq.buckets");
	}

	@Test
	void concurrencyBelowOneFails() {
		assertInvalid("redeq.consumer.concurrency=0", "redeq.consumer.concurrency must be at least 1, but was 0",
				"redeq.consumer.concurrency");
	}

	@Test
	void negativeDurationFails() {
		assertInvalid("redeq.consumer.timeout=-5s", "redeq.consumer.timeout must be a positive duration, but was PT-5S",
				"redeq.consumer.timeout");
	}

	@Test
	void backoffMultiplierBelowOneFailsNamingTheFullKey() {
		assertInvalid("redeq.consumer.backoff.multiplier=0.5",
				"redeq.consumer.backoff.multiplier must be a finite number >= 1.0, but was 0.5",
				"redeq.consumer.backoff.multiplier");
	}

	@Test
	void backoffMaxShorterThanInitialFails() {
		assertInvalid("redeq.consumer.backoff.max=100ms",
				"redeq.consumer.backoff.max (PT0.1S) must not be shorter than backoff.initial (PT1S)",
				"redeq.consumer.backoff.max");
	}

	@Test
	void badPrefixFails() {
		assertInvalid("redeq.prefix=my prefix", "redeq.prefix must be 1 to 50 characters", "redeq.prefix");
	}

	private void assertInvalid(String property, String message, String key) {
		this.runner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(message);
			FailureAnalysis analysis = new RedeqConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).startsWith("Invalid redeq configuration: ").contains(message);
			assertThat(analysis.getAction()).startsWith("Update " + key + " in your application's configuration");
		});
	}

	@Test
	void missingConnectionFactoryFailsWithAnalysis() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedeqAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new RedeqConnectionFactoryFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).startsWith(
						"redeq needs one RedisConnectionFactory (a LettuceConnectionFactory), but the application has 0");
				assertThat(analysis.getAction()).contains("redeq.enabled=false");
			});
	}

	@Test
	void nonLettuceConnectionFactoryFailsWithAnalysis() {
		// A connection factory of another client library; redeq must refuse it before
		// using it.
		RedisConnectionFactory other = (RedisConnectionFactory) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { RedisConnectionFactory.class }, (proxy, method, args) -> {
					throw new UnsupportedOperationException(method.getName());
				});
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedeqAutoConfiguration.class))
			.withBean(RedisConnectionFactory.class, () -> other)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new RedeqConnectionFactoryFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).startsWith(
						"redeq needs a LettuceConnectionFactory, but the " + "RedisConnectionFactory is a jdk.proxy");
				assertThat(analysis.getAction()).startsWith("Use Lettuce");
			});
	}

}
