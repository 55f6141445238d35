package io.redeq.spring.boot.autoconfigure;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.env.OriginTrackedMapPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.OriginTrackedValue;
import org.springframework.boot.origin.TextResourceOrigin;
import org.springframework.boot.origin.TextResourceOrigin.Location;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.internal.InvalidValueException;
import io.redeq.spring.internal.listener.RedeqListenerEndpointRegistry;

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
		assertInvalid("redeq.buckets", "10", "must be a power of two between 1 and 1024");
	}

	@Test
	void concurrencyBelowOneFails() {
		assertInvalid("redeq.consumer.concurrency", "0", "must be at least 1");
	}

	@Test
	void negativePrefetchFails() {
		assertInvalid("redeq.consumer.prefetch", "-1", "must be between 0 and 10000");
	}

	@Test
	void negativeDurationFails() {
		assertInvalid("redeq.consumer.timeout", "-5s", "must be a positive duration");
	}

	@Test
	void backoffMultiplierBelowOneFailsNamingTheFullKey() {
		assertInvalid("redeq.consumer.backoff.multiplier", "0.5", "must be a finite number >= 1.0");
	}

	@Test
	void backoffMaxShorterThanInitialFails() {
		assertInvalid("redeq.consumer.backoff.max", "100ms", "must not be shorter than backoff.initial (PT1S)");
	}

	@Test
	void badPrefixFails() {
		assertInvalid("redeq.prefix", "my prefix", "must be 1 to 50 characters from A-Z a-z 0-9 . _ -");
	}

	/**
	 * Sets the value from a file-like property source, as application.yml would, and
	 * checks that Spring Boot's own analyzer reports key, value, origin and reason.
	 */
	private void assertInvalid(String key, String value, String reason) {
		Origin origin = new TextResourceOrigin(new ClassPathResource("application.yml"), new Location(6, 12));
		PropertySource<?> source = new OriginTrackedMapPropertySource("application.yml",
				Map.of(key, OriginTrackedValue.of(value, origin)));
		this.runner.withInitializer((context) -> context.getEnvironment().getPropertySources().addFirst(source))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidValueException.class);
				InvalidConfigurationPropertyValueException invalid = findCause(context.getStartupFailure(),
						InvalidConfigurationPropertyValueException.class);
				assertThat(invalid.getName()).isEqualTo(key);
				assertThat(invalid.getReason()).isEqualTo(reason);
				StandardEnvironment environment = new StandardEnvironment();
				environment.getPropertySources().addFirst(source);
				FailureAnalysis analysis = analyze(context.getStartupFailure(), environment);
				assertThat(analysis.getDescription())
					.contains("Invalid value '" + value + "' for configuration property '" + key + "'")
					.contains("originating from 'class path resource [application.yml] - 7:13'")
					.contains(reason);
				assertThat(analysis.getAction()).contains("Review the value of the property");
			});
	}

	private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		throw new AssertionError("No " + type.getSimpleName() + " in " + failure);
	}

	/** Runs every registered failure analyzer, as Spring Boot does, first answer wins. */
	static FailureAnalysis analyze(Throwable failure, Environment environment) {
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader
			.forDefaultResourceLocation(RedeqAutoConfigurationTests.class.getClassLoader())
			.load(FailureAnalyzer.class, ArgumentResolver.of(Environment.class, environment),
					FailureHandler.handleMessage((message, ex) -> {
						// Analyzers that need a bean factory are not ours; skip them.
					}));
		for (FailureAnalyzer analyzer : analyzers) {
			FailureAnalysis analysis = analyzer.analyze(failure);
			if (analysis != null) {
				return analysis;
			}
		}
		throw new AssertionError("No failure analyzer for " + failure);
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
		// A connection factory of another client library; redeq must refuse it
		// before using it.
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
