package io.redeq.spring.internal.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.DeadJob;
import io.redeq.Delivery;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.spring.RedeqListener;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code redeq.consumer.not-retryable} and {@code redeq.topics.<topic>.not-retryable}:
 * exceptions the application does not own send a listener's job to DEAD at once.
 */
@RedisTest
class NotRetryableListenerIntegrationTests {

	private final ApplicationContextRunner runner;

	NotRetryableListenerIntegrationTests(RedisServer server) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"redeq.consumer.backoff.initial=50ms", "redeq.consumer.backoff.jitter=0",
					"redeq.consumer.max-attempts=4")
			.withBean(FailingListeners.class);
	}

	@Test
	void aConfiguredExceptionOrItsSubclassOrCauseIsDeadAfterOneAttempt() {
		this.runner
			.withPropertyValues("redeq.consumer.not-retryable=java.lang.IllegalArgumentException",
					"redeq.topics.charge.other.not-retryable=java.lang.UnsupportedOperationException")
			.run((context) -> {
				RedeqClient client = context.getBean(RedeqClient.class);
				RedeqAdmin admin = context.getBean(RedeqAdmin.class);
				FailingListeners listeners = context.getBean(FailingListeners.class);
				client.schedule("charge", "illegal-argument", Duration.ZERO);
				client.schedule("charge", "number-format", Duration.ZERO);
				client.schedule("charge", "caused-by-illegal-argument", Duration.ZERO);
				await().atMost(Duration.ofSeconds(10)).until(() -> admin.stats("charge").dead() == 3);
				assertThat(listeners.runs).hasSize(3);
				assertThat(admin.deadJobs("charge", 0, 10)).extracting(DeadJob::attempts).containsOnly(1);

				// The topic's own list replaces the default one.
				client.schedule("charge.other", "illegal-argument", Duration.ZERO);
				await().atMost(Duration.ofSeconds(10)).until(() -> admin.stats("charge.other").dead() == 1);
				assertThat(admin.deadJobs("charge.other", 0, 10)).extracting(DeadJob::attempts).containsOnly(4);
			});
	}

	@Test
	void aNameThatCannotBeAClassFailsStartupNamingIt() {
		this.runner.withPropertyValues("redeq.consumer.not-retryable=not a class").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("redeq.consumer.not-retryable")
				.hasMessageContaining("'not a class'");
		});
	}

	static class FailingListeners {

		final List<String> runs = new CopyOnWriteArrayList<>();

		@RedeqListener(topic = "charge")
		void charge(String kind, Delivery delivery) {
			fail(kind, delivery);
		}

		@RedeqListener(topic = "charge.other")
		void other(String kind, Delivery delivery) {
			fail(kind, delivery);
		}

		private void fail(String kind, Delivery delivery) {
			this.runs.add(delivery.topic() + " " + kind + " " + delivery.attempt());
			switch (kind) {
				case "illegal-argument" -> throw new IllegalArgumentException("bad input");
				case "number-format" -> throw new NumberFormatException("a subclass");
				default -> throw new IllegalStateException("wrapped", new IllegalArgumentException("the cause"));
			}
		}

	}

}
