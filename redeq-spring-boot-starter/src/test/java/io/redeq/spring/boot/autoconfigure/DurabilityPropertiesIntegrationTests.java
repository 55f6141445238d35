package io.redeq.spring.boot.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.Redeq;
import io.redeq.RedeqOptions;
import io.redeq.RedeqUnavailableException;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code redeq.durability.*} reaches the engine, is validated with the key in the
 * message, and makes schedule wait for replicas (a server without any refuses with
 * "acknowledged by 0 of 1").
 */
@RedisTest
class DurabilityPropertiesIntegrationTests {

	private final ApplicationContextRunner runner;

	DurabilityPropertiesIntegrationTests(RedisServer server) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port());
	}

	@Test
	void defaultsDoNotWait() {
		this.runner.run((context) -> {
			RedeqOptions options = context.getBean(Redeq.class).options();
			assertThat(options.waitReplicas()).isZero();
			assertThat(options.waitTimeout()).isEqualTo(Duration.ofSeconds(1));
		});
	}

	@Test
	void waitReplicasMakesScheduleWaitAndRefuseWhenNoReplicaAcknowledges() {
		this.runner.withPropertyValues("redeq.durability.wait-replicas=1", "redeq.durability.wait-timeout=200ms")
			.run((context) -> {
				Redeq redeq = context.getBean(Redeq.class);
				assertThat(redeq.options().waitReplicas()).isEqualTo(1);
				assertThat(redeq.options().waitTimeout()).isEqualTo(Duration.ofMillis(200));
				assertThatExceptionOfType(RedeqUnavailableException.class)
					.isThrownBy(() -> redeq.client().schedule("t", "x", Duration.ofMinutes(1)))
					.withMessageContaining("acknowledged by 0 of 1 replicas")
					.withMessageContaining("redeq.durability.wait-replicas=1");
				// Written all the same; the caller may schedule it again under
				// the same id.
				assertThat(redeq.admin().stats("t").delayed()).isEqualTo(1);
			});
	}

	@Test
	void negativeWaitReplicasFailsAtStartupNamingTheKey() {
		this.runner.withPropertyValues("redeq.durability.wait-replicas=-1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("redeq.durability.wait-replicas");
		});
	}

}
