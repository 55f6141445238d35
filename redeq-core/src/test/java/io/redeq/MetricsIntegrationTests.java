package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import io.redeq.test.CommandStats;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Meter values after a scripted scenario, and gauges that read a snapshot instead of
 * Redis.
 */
@RedisTest
class MetricsIntegrationTests {

	private final RedisClient lettuce;

	MetricsIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@Test
	void countsCompletedRetriedDeadAndRecordsLateness() {
		MeterRegistry registry = new SimpleMeterRegistry();
		try (Redeq redeq = Redeq.builder(this.lettuce)
			.meterRegistry(registry)
			.statsRefreshInterval(Duration.ofMillis(200))
			.backoff(new Backoff(Duration.ofMillis(20), 1.0, Duration.ofMillis(20), 0.0))
			.build()) {
			redeq.subscribe("scripted", String.class, (kind, delivery) -> {
				if (kind.equals("fail-once") && delivery.attempt() == 1 || kind.equals("always-fail")) {
					throw new IllegalStateException(kind);
				}
			}, SubscriptionOptions.builder().maxAttempts(2).build());
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				jobs.add(Job.builder("scripted").payload("ok").delay(Duration.ofMillis(50)).build());
			}
			for (int i = 0; i < 3; i++) {
				jobs.add(Job.builder("scripted").payload("fail-once").build());
			}
			for (int i = 0; i < 2; i++) {
				jobs.add(Job.builder("scripted").payload("always-fail").build());
			}
			redeq.client().scheduleAll(jobs);
			String cancelled = redeq.client().schedule("scripted", "never", Duration.ofHours(1));
			redeq.client().cancel("scripted", cancelled);

			await().atMost(Duration.ofSeconds(10))
				.until(() -> count(registry, "redeq.jobs.completed") == 13 && count(registry, "redeq.jobs.dead") == 2);
			assertThat(count(registry, "redeq.jobs.scheduled")).isEqualTo(16);
			assertThat(count(registry, "redeq.jobs.cancelled")).isEqualTo(1);
			assertThat(count(registry, "redeq.jobs.retried")).as("3 fail once, 2 fail twice: 3 + 2 retries")
				.isEqualTo(5);
			assertThat(registry.get("redeq.jobs.lateness").tag("topic", "scripted").timer().count()).isEqualTo(20);
			assertThat(registry.get("redeq.jobs.lateness").tag("topic", "scripted").timer().max(TimeUnit.MILLISECONDS))
				.isLessThan(2000);
			assertThat(registry.get("redeq.jobs.duration").tag("topic", "scripted").timer().count()).isEqualTo(18);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> registry.find("redeq.jobs.pending")
					.tags("topic", "scripted", "state", "dead")
					.gauge() != null
						&& registry.get("redeq.jobs.pending")
							.tags("topic", "scripted", "state", "dead")
							.gauge()
							.value() == 2);
			assertThat(registry.get("redeq.migrator.buckets.owned").gauge().value()).isEqualTo(16);
			assertThat(registry.get("redeq.migrator.migrated").counter().count()).isGreaterThanOrEqualTo(15);
		}
	}

	@Test
	void scrapingGaugesDoesNotCallRedis() {
		MeterRegistry registry = new SimpleMeterRegistry();
		try (Redeq redeq = Redeq.builder(this.lettuce)
			.meterRegistry(registry)
			.statsRefreshInterval(Duration.ofHours(1))
			.migratorEnabled(false)
			.build()) {
			redeq.client().schedule("scraped", "x", Duration.ofHours(1));
			redeq.refreshSnapshot();
			long before = CommandStats.scriptCalls(this.lettuce);
			for (int i = 0; i < 1000; i++) {
				registry.get("redeq.jobs.pending").tags("topic", "scraped", "state", "delayed").gauge().value();
				redeq.snapshot();
			}
			assertThat(CommandStats.scriptCalls(this.lettuce) - before).isZero();
			assertThat(registry.get("redeq.jobs.pending").tags("topic", "scraped", "state", "delayed").gauge().value())
				.isEqualTo(1);
		}
	}

	private static double count(MeterRegistry registry, String name) {
		return registry.find(name).tag("topic", "scripted").counters().stream().mapToDouble((c) -> c.count()).sum();
	}

}
