package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedeqAdmin#pause}: every instance stops claiming a topic within a second while
 * scheduling and migration go on, other topics flow, and {@link RedeqAdmin#resume}
 * delivers what waited. The state is in Redis, visible to every engine and in the
 * snapshot and metrics.
 */
@RedisTest
class PauseIntegrationTests {

	private final RedisClient lettuce;

	private final List<Redeq> engines = new ArrayList<>();

	private final Set<String> delivered = ConcurrentHashMap.newKeySet();

	private MeterRegistry registry;

	PauseIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		this.registry = new SimpleMeterRegistry();
		for (int i = 0; i < 2; i++) {
			Redeq.Builder builder = Redeq.builder(this.lettuce).instanceId("pause-" + i);
			if (i == 0) {
				builder.meterRegistry(this.registry).statsRefreshInterval(Duration.ofMillis(200));
			}
			Redeq engine = builder.build();
			this.engines.add(engine);
			engine.subscribe("mail", String.class, (text, delivery) -> this.delivered.add(delivery.id()));
			engine.subscribe("sms", String.class, (text, delivery) -> this.delivered.add(delivery.id()));
		}
	}

	@AfterEach
	void stop() {
		this.engines.forEach(Redeq::close);
	}

	@Test
	void everyInstanceStopsClaimingWithinASecondAndResumeDeliversWhatWaited() {
		RedeqAdmin admin = this.engines.get(0).admin();
		RedeqAdmin other = this.engines.get(1).admin();
		admin.pause("mail");
		assertThat(other.isPaused("mail")).isTrue();
		assertThat(other.isPaused("sms")).isFalse();
		// Due one second after the pause: by then no instance claims the topic.
		RedeqClient client = this.engines.get(1).client();
		for (int i = 0; i < 20; i++) {
			client.schedule(Job.builder("mail").id("m-" + i).payload("x").delay(Duration.ofSeconds(1)).build());
		}
		client.schedule(Job.builder("sms").id("s-1").payload("x").delay(Duration.ofSeconds(1)).build());

		await().atMost(Duration.ofSeconds(10)).until(() -> this.delivered.contains("s-1"));
		await().atMost(Duration.ofSeconds(10)).until(() -> admin.stats("mail").ready() == 20);
		await().during(Duration.ofSeconds(2))
			.atMost(Duration.ofSeconds(4))
			.until(() -> this.delivered.stream().noneMatch((id) -> id.startsWith("m-")));
		assertThat(admin.stats("mail").ready()).as("migration went on; the jobs wait READY").isEqualTo(20);

		other.resume("mail");
		assertThat(admin.isPaused("mail")).isFalse();
		await().atMost(Duration.ofSeconds(15))
			.until(() -> this.delivered.stream().filter((id) -> id.startsWith("m-")).count() == 20);
	}

	@Test
	void aPauseShowsInTheSnapshotAndTheMetricAndOutlivesTheEngineThatSetIt() {
		this.engines.get(1).admin().pause("mail");
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.engines.get(0).refreshSnapshot().pausedTopics().contains("mail"));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.registry.find("redeq.topic.paused").tag("topic", "mail").gauge() != null
					&& this.registry.find("redeq.topic.paused").tag("topic", "mail").gauge().value() == 1.0);

		this.engines.get(1).close();
		try (Redeq later = Redeq.builder(this.lettuce).instanceId("later").build()) {
			assertThat(later.admin().isPaused("mail")).as("stored in Redis").isTrue();
			later.admin().resume("mail");
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.registry.find("redeq.topic.paused").tag("topic", "mail").gauge().value() == 0.0);
		assertThat(this.engines.get(0).refreshSnapshot().pausedTopics()).isEmpty();
	}

}
