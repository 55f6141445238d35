package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.ClaimResult;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A job's own timeout and attempts win over its subscription's, through retries; and
 * {@link RedeqAdmin#promote} makes a DELAYED job due now.
 */
@RedisTest
class JobSettingsIntegrationTests {

	private final RedisClient lettuce;

	private Redeq redeq;

	JobSettingsIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		this.redeq = Redeq.builder(this.lettuce)
			.backoff(new Backoff(Duration.ofMillis(20), 1.0, Duration.ofMillis(20), 0.0))
			.build();
	}

	@AfterEach
	void stop() {
		this.redeq.close();
	}

	@Test
	void aJobsOwnAttemptsWinOverItsSubscriptionsThroughItsRetries() {
		List<String> attempts = new CopyOnWriteArrayList<>();
		this.redeq.subscribe("flaky", String.class, (text, delivery) -> {
			attempts.add(delivery.id() + "#" + delivery.attempt());
			throw new IllegalStateException("partner down");
		}, SubscriptionOptions.builder().maxAttempts(4).build());

		this.redeq.client().schedule(Job.builder("flaky").id("own").payload("x").maxAttempts(2).build());
		this.redeq.client().schedule(Job.builder("flaky").id("inherited").payload("x").build());

		await().atMost(Duration.ofSeconds(20)).until(() -> this.redeq.admin().stats("flaky").dead() == 2);
		assertThat(attempts).filteredOn((a) -> a.startsWith("own#")).containsExactly("own#1", "own#2");
		assertThat(attempts).filteredOn((a) -> a.startsWith("inherited#")).hasSize(4);
		assertThat(this.redeq.admin().deadJobs("flaky", 0, 10)).anySatisfy((dead) -> {
			assertThat(dead.id()).isEqualTo("own");
			assertThat(dead.attempts()).isEqualTo(2);
			assertThat(dead.lastError()).startsWith("attempt 2 of 2 failed");
		});
	}

	@Test
	void aJobsOwnTimeoutWinsOverItsSubscriptions() {
		List<String> finished = new CopyOnWriteArrayList<>();
		this.redeq.subscribe("slow", String.class, (text, delivery) -> {
			Thread.sleep(1500); // the handler's work: what the job's own timeout must cut
								// short
			finished.add(delivery.id());
		}, SubscriptionOptions.builder().timeout(Duration.ofSeconds(30)).maxAttempts(1).concurrency(2).build());

		this.redeq.client()
			.schedule(Job.builder("slow").id("short").payload("x").timeout(Duration.ofMillis(200)).build());
		this.redeq.client().schedule(Job.builder("slow").id("long").payload("x").build());

		await().atMost(Duration.ofSeconds(20)).until(() -> this.redeq.admin().stats("slow").pending() == 0);
		assertThat(finished).containsExactly("long");
		assertThat(this.redeq.admin().deadJobs("slow", 0, 10)).singleElement().satisfies((dead) -> {
			assertThat(dead.id()).isEqualTo("short");
			assertThat(dead.lastError()).contains("HandlerTimeoutException").contains("PT0.2S");
		});
	}

	@Test
	void aJobWhoseOwnAttemptsAreUsedUpWhenItsLeaseExpiresGoesDeadAndOthersAreDeliveredAgain() {
		try (Redeq engine = Redeq.builder(this.lettuce).prefix("leased").buckets(1).migratorEnabled(false).build();
				RedisConnections connections = new RedisConnections(this.lettuce)) {
			RedisJobStore store = new RedisJobStore(new KeySpace("leased", 1),
					new ScriptRunner(connections, Duration.ofSeconds(10)));
			engine.client().schedule(Job.builder("crash").id("once").payload("x").maxAttempts(1).build());
			engine.client().schedule(Job.builder("crash").id("inherits").payload("x").build());
			assertThat(store.migrate(0, 10, false, "", 10_000, 0).migrated()).isEqualTo(2);
			// Claimed under a 1 ms lease that nobody renews: as if the instance died.
			ClaimResult first = store.scripts().await(store.claim(0, "crash", 10, 1, "dead:1", 5), "claim");
			assertThat(first.jobs()).hasSize(2)
				.anySatisfy((job) -> assertThat(job.settings().maxAttempts()).isEqualTo(1));
			await().atMost(Duration.ofSeconds(5)).until(() -> {
				// The sweep reclaims expired leases.
				store.migrate(0, 10, true, "", 10_000, 0);
				return engine.admin().stats("crash").ready() == 2;
			});

			ClaimResult second = store.scripts().await(store.claim(0, "crash", 10, 30_000, "alive:1", 5), "claim");
			assertThat(second.jobs()).extracting(ClaimedJob::id).containsExactly("inherits");
			assertThat(second.jobs().get(0).attempt()).isEqualTo(2);
			assertThat(engine.admin().deadJobs("crash", 0, 10)).singleElement().satisfies((dead) -> {
				assertThat(dead.id()).isEqualTo("once");
				assertThat(dead.lastError()).startsWith("lease expired during attempt 1");
			});
		}
	}

	@Test
	void promoteMakesADelayedJobDueNowAndOnlyADelayedOne() {
		List<Delivery> deliveries = new CopyOnWriteArrayList<>();
		RedeqClient client = this.redeq.client();
		client.schedule(Job.builder("later").id("p-1").payload("x").delay(Duration.ofHours(1)).build());
		Instant before = Instant.now();

		assertThat(this.redeq.admin().promote("later", "p-1")).isTrue();
		JobInfo ready = client.find("later", "p-1").orElseThrow();
		assertThat(ready.state()).isEqualTo(JobState.READY);
		assertThat(ready.dueAt()).isBetween(before.minusSeconds(5), Instant.now().plusSeconds(5));
		assertThat(this.redeq.admin().promote("later", "p-1")).as("already READY").isFalse();
		assertThat(this.redeq.admin().promote("later", "nobody")).as("unknown").isFalse();

		this.redeq.subscribe("later", String.class, (text, delivery) -> deliveries.add(delivery));
		await().atMost(Duration.ofSeconds(10)).until(() -> deliveries.size() == 1);
		assertThat(deliveries.get(0).id()).isEqualTo("p-1");
		await().atMost(Duration.ofSeconds(5)).until(() -> client.find("later", "p-1").isEmpty());
		assertThat(this.redeq.admin().promote("later", "p-1")).as("done").isFalse();
	}

}
