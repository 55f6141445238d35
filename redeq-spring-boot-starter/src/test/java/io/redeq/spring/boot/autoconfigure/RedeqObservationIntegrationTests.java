package io.redeq.spring.boot.autoconfigure;

import java.time.Duration;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.DefaultRedeqScheduleObservationConvention;
import io.redeq.RedeqClient;
import io.redeq.RedeqScheduleObservationConvention;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

/**
 * {@code redeq.observation.enabled}: off by default even with an
 * {@link ObservationRegistry} bean; on, the engine observes with that registry and a
 * convention bean.
 */
@RedisTest
class RedeqObservationIntegrationTests {

	private final ApplicationContextRunner runner;

	RedeqObservationIntegrationTests(RedisServer server) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
			.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port());
	}

	@Test
	void offByDefault() {
		this.runner.run((context) -> {
			context.getBean(RedeqClient.class).schedule("t", "x", Duration.ofHours(1));
			context.getBean(RedeqClient.class).async().schedule("t", "y", Duration.ofHours(1)).join();

			TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
				.doesNotHaveAnyObservation();
		});
	}

	@Test
	void onObservesWithTheRegistryAndTheConventionBean() {
		this.runner.withPropertyValues("redeq.observation.enabled=true")
			.withBean(RedeqScheduleObservationConvention.class, () -> new DefaultRedeqScheduleObservationConvention() {

				@Override
				public String getName() {
					return "shop.schedule";
				}

			})
			.run((context) -> {
				context.getBean(RedeqClient.class).async().schedule("t", "x", Duration.ofHours(1)).join();

				TestObservationRegistryAssert.assertThat(context.getBean(TestObservationRegistry.class))
					.hasObservationWithNameEqualTo("shop.schedule")
					.that()
					.hasLowCardinalityKeyValue("topic", "t")
					.hasBeenStopped();
			});
	}

}
