package io.redeq.spring.boot.observability;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.Delivery;
import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.RedeqClient;
import io.redeq.spring.RedeqListener;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqBuilderCustomizer;
import io.redeq.spring.boot.autoconfigure.endpoint.RedeqEndpointAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.health.RedeqHealthContributorAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.metrics.RedeqMetricsAutoConfiguration;
import io.redeq.spring.internal.endpoint.RedeqEndpoint;
import io.redeq.spring.internal.health.RedeqHealthIndicator;
import io.redeq.test.CommandStats;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Metrics, health and logging context of the starter against a real redis-server: Boot's
 * own metrics auto-configuration provides the registry, as in an application.
 */
@RedisTest
class ObservabilityIntegrationTests {

	private final RedisServer server;

	private final RedisClient lettuce;

	private final ApplicationContextRunner runner;

	ObservabilityIntegrationTests(RedisServer server, RedisClient lettuce) {
		this.server = server;
		this.lettuce = lettuce;
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
					DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class, RedeqMetricsAutoConfiguration.class,
					RedeqHealthContributorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"redeq.consumer.backoff.initial=50ms", "redeq.consumer.backoff.max=50ms",
					"redeq.consumer.backoff.jitter=0", "redeq.stats-refresh-interval=200ms",
					"redeq.command-timeout=1s");
	}

	@Test
	void scriptedScenarioShowsInTheApplicationsRegistryAndHandlersSeeTheMdc() {
		this.runner.withBean(ScriptedListener.class).run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			RedeqClient client = context.getBean(RedeqClient.class);
			for (int i = 0; i < 10; i++) {
				client.schedule(Job.builder("scripted").payload("ok").delay(Duration.ofMillis(100)).build());
			}
			for (int i = 0; i < 3; i++) {
				client.schedule("scripted", "fail-once", Duration.ZERO);
			}
			for (int i = 0; i < 2; i++) {
				client.schedule("scripted", "always-fail", Duration.ZERO);
			}
			await().atMost(Duration.ofSeconds(20))
				.until(() -> count(registry, "redeq.jobs.completed") == 13 && count(registry, "redeq.jobs.dead") == 2);
			assertThat(count(registry, "redeq.jobs.scheduled")).isEqualTo(15);
			assertThat(count(registry, "redeq.jobs.retried")).as("3 fail once, 2 fail twice").isEqualTo(5);
			assertThat(registry.get("redeq.jobs.lateness").tag("topic", "scripted").timer().count()).isEqualTo(20);
			assertThat(registry.get("redeq.jobs.lateness").tag("topic", "scripted").timer().max(TimeUnit.MILLISECONDS))
				.isLessThan(5000);
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

			List<String> mdc = context.getBean(ScriptedListener.class).mdc;
			assertThat(mdc).hasSize(20).allSatisfy((entry) -> {
				String[] seen = entry.split("=");
				assertThat(seen[0]).as("MDC redeq.topic/redeq.jobId while the handler ran").isEqualTo(seen[1]);
			});
			assertThat(MDC.get("redeq.topic")).as("not left on the test thread").isNull();
		});
	}

	@Test
	void healthIsUpWithDetailsAndDownWhileRedisIsStopped() {
		this.runner.run((context) -> {
			RedeqHealthIndicator indicator = context.getBean(RedeqHealthIndicator.class);
			context.getBean(RedeqClient.class).schedule("later", "x", Duration.ofHours(1));
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				Health health = indicator.health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("instanceId", context.getBean(Redeq.class).instanceId())
					.containsEntry("migrationLagMillis", 0L)
					.containsEntry("topics",
							Map.of("later", Map.of("delayed", 1L, "ready", 0L, "inFlight", 0L, "dead", 0L)));
				assertThat((List<?>) health.getDetails().get("ownedBuckets")).hasSize(16);
			});

			this.server.stop();
			await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
				Health health = indicator.health();
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.getDetails().get("problems").toString()).contains("Redis is not reachable");
			});

			this.server.start();
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(indicator.health().getStatus()).isEqualTo(Status.UP));
		});
	}

	@Test
	void healthIsDownWhenDueJobsAreNotMigrated() {
		this.runner.withPropertyValues("redeq.migrator.enabled=false", "redeq.health.migration-lag-threshold=1s")
			.run((context) -> {
				RedeqHealthIndicator indicator = context.getBean(RedeqHealthIndicator.class);
				context.getBean(RedeqClient.class).schedule("unmigrated", "x", Duration.ZERO);
				await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
					Health health = indicator.health();
					assertThat(health.getStatus()).isEqualTo(Status.DOWN);
					assertThat(health.getDetails().get("problems").toString()).contains("to be migrated")
						.contains("redeq.migrator.enabled=true");
					assertThat((Long) health.getDetails().get("migrationLagMillis")).isGreaterThan(1000);
				});
			});
	}

	@Test
	void healthIsDownWhenReadyJobsOfAListenedTopicWaitTooLong() {
		this.runner.withBean(BlockingListener.class)
			.withPropertyValues("redeq.health.ready-wait-threshold=1s")
			.run((context) -> {
				RedeqHealthIndicator indicator = context.getBean(RedeqHealthIndicator.class);
				RedeqClient client = context.getBean(RedeqClient.class);
				client.schedule("stuck", "first", Duration.ZERO);
				client.schedule("stuck", "second", Duration.ZERO);
				try {
					await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
						Health health = indicator.health();
						assertThat(health.getStatus()).isEqualTo(Status.DOWN);
						assertThat(health.getDetails().get("problems").toString())
							.contains("READY jobs of topic 'stuck'");
					});
				}
				finally {
					context.getBean(BlockingListener.class).release.countDown();
				}
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(indicator.health().getStatus()).isEqualTo(Status.UP));
			});
	}

	@Test
	void manyHealthChecksAndScrapesDoNotMultiplyRedisCalls() {
		this.runner.withPropertyValues("redeq.stats-refresh-interval=1h").run((context) -> {
			RedeqHealthIndicator indicator = context.getBean(RedeqHealthIndicator.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			context.getBean(RedeqClient.class).schedule("scraped", "x", Duration.ofHours(1));
			context.getBean(Redeq.class).refreshSnapshot();
			long before = CommandStats.scriptCalls(this.lettuce);
			for (int i = 0; i < 1000; i++) {
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
				registry.get("redeq.jobs.pending").tags("topic", "scraped", "state", "delayed").gauge().value();
			}
			// The migrator and idle consumers keep calling Redis on their own; health and
			// scrapes add nothing.
			assertThat(CommandStats.scriptCalls(this.lettuce) - before).isLessThan(100);
			assertThat(registry.get("redeq.jobs.pending").tags("topic", "scraped", "state", "delayed").gauge().value())
				.isEqualTo(1);
		});
	}

	@Test
	void eachPartBacksOffAsActuatorsSettingsSay() {
		ApplicationContextRunner bare = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class,
					RedeqMetricsAutoConfiguration.class, RedeqHealthContributorAutoConfiguration.class,
					RedeqEndpointAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.server.host(),
					"spring.data.redis.port=" + this.server.port());
		bare.run((context) -> {
			assertThat(context).hasSingleBean(Redeq.class);
			assertThat(context).as("no MeterRegistry, no binding").doesNotHaveBean(RedeqBuilderCustomizer.class);
			assertThat(context).hasSingleBean(RedeqHealthIndicator.class);
			assertThat(context).as("not exposed by default").doesNotHaveBean(RedeqEndpoint.class);
		});
		bare.withPropertyValues("management.health.redeq.enabled=false",
				"management.endpoints.web.exposure.include=redeq")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(RedeqHealthIndicator.class);
				assertThat(context).hasSingleBean(RedeqEndpoint.class);
			});
		this.runner.run((context) -> assertThat(context).hasSingleBean(RedeqBuilderCustomizer.class));
	}

	private static double count(MeterRegistry registry, String name) {
		return registry.find(name).tag("topic", "scripted").counters().stream().mapToDouble((c) -> c.count()).sum();
	}

	static class ScriptedListener {

		final List<String> mdc = new CopyOnWriteArrayList<>();

		@RedeqListener(topic = "scripted", maxAttempts = "2")
		void handle(String kind, Delivery delivery) {
			this.mdc.add(MDC.get("redeq.topic") + "/" + MDC.get("redeq.jobId") + "=" + delivery.topic() + "/"
					+ delivery.id());
			if (kind.equals("fail-once") && delivery.attempt() == 1 || kind.equals("always-fail")) {
				throw new IllegalStateException("scripted failure: " + kind);
			}
		}

	}

	static class BlockingListener {

		final CountDownLatch release = new CountDownLatch(1);

		@RedeqListener(topic = "stuck", concurrency = "1")
		void handle(String payload) throws InterruptedException {
			this.release.await(30, TimeUnit.SECONDS);
		}

	}

}
