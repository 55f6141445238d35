package io.redeq.spring.internal.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.RedeqClient;
import io.redeq.TopicStats;
import io.redeq.spring.RedeqListener;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Closing the application context under load loses nothing: running handlers finish, jobs
 * fetched but not started go back to READY at once, and a second application completes
 * the rest exactly once.
 */
@RedisTest
class GracefulShutdownIntegrationTests {

	private static final int JOBS = 200;

	/** Completions per job id, shared by both application runs. */
	static final Map<String, AtomicInteger> completions = new ConcurrentHashMap<>();

	static final AtomicInteger running = new AtomicInteger();

	private final ApplicationContextRunner runner;

	GracefulShutdownIntegrationTests(RedisServer server) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"redeq.shutdown-timeout=10s")
			.withBean(SlowListener.class);
	}

	@Test
	void closingUnderLoadLosesNothing(RedisClient lettuce) {
		completions.clear();
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < JOBS; i++) {
			jobs.add(Job.builder("work").id("job-" + i).payload("p" + i).build());
		}
		ConfigurableApplicationContext[] first = new ConfigurableApplicationContext[1];
		this.runner.run((context) -> {
			first[0] = context;
			context.getBean(RedeqClient.class).scheduleAll(jobs);
			await().atMost(Duration.ofSeconds(20)).until(() -> completions.size() >= 20 && running.get() > 0);
			context.close();
			assertThat(running).hasValue(0);
		});
		assertThat(first[0].isActive()).isFalse();

		try (Redeq inspector = Redeq.builder(lettuce).migratorEnabled(false).build()) {
			TopicStats stats = inspector.admin().stats("work");
			assertThat(stats.inFlight()).as("in-flight jobs after shutdown").isZero();
			assertThat(stats.dead()).isZero();
			assertThat(completions.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
			assertThat(completions.size() + stats.ready() + stats.delayed()).isEqualTo(JOBS);
			assertThat(completions.size()).isLessThan(JOBS);
		}

		this.runner.run((context) -> await().atMost(Duration.ofSeconds(60)).until(() -> completions.size() == JOBS));
		assertThat(completions).hasSize(JOBS);
		assertThat(completions.values()).allSatisfy((count) -> assertThat(count).hasValue(1));
	}

	static class SlowListener {

		@RedeqListener(topic = "work", concurrency = "4")
		void handle(String payload, io.redeq.Delivery delivery) throws InterruptedException {
			running.incrementAndGet();
			try {
				// The work itself; not a wait in the test.
				new CountDownLatch(1).await(50, TimeUnit.MILLISECONDS);
				completions.computeIfAbsent(delivery.id(), (id) -> new AtomicInteger()).incrementAndGet();
			}
			finally {
				running.decrementAndGet();
			}
		}

	}

}
