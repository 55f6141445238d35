package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A job restored with the attempts it already used (as the starter's journal recovery
 * does) goes on counting from there instead of starting a fresh set.
 */
@RedisTest
class RestoredAttemptsIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(20);

	private final RedisClient lettuce;

	private final List<String> dead = new CopyOnWriteArrayList<>();

	private Redeq redeq;

	RestoredAttemptsIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		this.redeq = Redeq.builder(this.lettuce)
			.backoff(new Backoff(Duration.ofMillis(50), 2.0, Duration.ofSeconds(1), 0.0))
			.lifecycleListener(new JobLifecycleListener() {
				@Override
				public void onDead(Delivery delivery, String reason) {
					RestoredAttemptsIntegrationTests.this.dead.add(delivery.id() + " attempt " + delivery.attempt());
				}
			})
			.build();
	}

	@AfterEach
	void stop() {
		this.redeq.close();
	}

	@Test
	void aJobRestoredWithTwoOfThreeAttemptsUsedRunsOnceMoreThenIsDead() {
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		this.redeq.subscribe("restored", String.class, (payload, delivery) -> {
			attempts.add(delivery.attempt());
			throw new IllegalStateException("still failing");
		}, SubscriptionOptions.builder().maxAttempts(3).build());

		String id = this.redeq.restorer()
			.restore(Job.builder("restored").id("r-1").payload("x").onDuplicate(Duplicate.KEEP).build(), 2);

		assertThat(id).isEqualTo("r-1");
		await().atMost(TIMEOUT).until(() -> this.dead.size() == 1);
		assertThat(attempts).containsExactly(3);
		assertThat(this.dead).containsExactly("r-1 attempt 3");
		assertThat(this.redeq.admin().deadJobs("restored", 0, 10)).singleElement().satisfies((job) -> {
			assertThat(job.attempts()).isEqualTo(3);
			assertThat(job.lastError()).contains("still failing");
		});
		assertThat(this.redeq.client().find("restored", "r-1")).get()
			.extracting(JobInfo::state)
			.isEqualTo(JobState.DEAD);
	}

	@Test
	void aRestoredJobDueLaterKeepsItsDueTimeAndAttempts() {
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		List<String> done = new CopyOnWriteArrayList<>();
		this.redeq.subscribe("later", String.class, (payload, delivery) -> {
			attempts.add(delivery.attempt());
			done.add(delivery.id());
		}, SubscriptionOptions.builder().maxAttempts(10).build());
		Instant due = Instant.now().plusMillis(500);

		this.redeq.restorer().restore(Job.builder("later").id("l-1").payload("x").dueAt(due).build(), 4);

		assertThat(this.redeq.client().find("later", "l-1")).get().satisfies((job) -> {
			assertThat(job.dueAt()).isEqualTo(due.truncatedTo(ChronoUnit.MILLIS));
			assertThat(job.attempts()).isEqualTo(4);
		});
		await().atMost(TIMEOUT).until(() -> done.size() == 1);
		assertThat(attempts).containsExactly(5);
	}

	@Test
	void aJobRestoredWithItsAttemptsUsedUpIsDeadWithoutRunning() {
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		this.redeq.subscribe("spent", String.class, (payload, delivery) -> attempts.add(delivery.attempt()),
				SubscriptionOptions.builder().maxAttempts(3).build());

		this.redeq.restorer().restore(Job.builder("spent").id("s-1").payload("x").build(), 3);

		await().atMost(TIMEOUT)
			.until(() -> this.redeq.client().find("spent", "s-1").map(JobInfo::state).orElse(null) == JobState.DEAD);
		assertThat(attempts).isEmpty();
		assertThat(this.redeq.admin().deadJobs("spent", 0, 10)).singleElement()
			.satisfies((job) -> assertThat(job.attempts()).isEqualTo(3));
	}

	@Test
	void restoringAJobRedisStillHoldsWithKeepLeavesItsAttemptsAlone() {
		this.redeq.client().schedule(Job.builder("kept").id("k-1").payload("x").delay(Duration.ofMillis(300)).build());
		this.redeq.restorer()
			.restore(Job.builder("kept").id("k-1").payload("y").onDuplicate(Duplicate.KEEP).build(), 2);
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		List<String> payloads = new CopyOnWriteArrayList<>();
		this.redeq.subscribe("kept", String.class, (payload, delivery) -> {
			payloads.add(payload);
			attempts.add(delivery.attempt());
		});

		await().atMost(TIMEOUT).until(() -> attempts.size() == 1);
		assertThat(attempts).containsExactly(1);
		assertThat(payloads).containsExactly("x");
	}

	@Test
	void aNegativeAttemptCountIsRefusedWithTheValue() {
		Job job = Job.builder("restored").id("r-2").payload("x").build();
		assertThatIllegalArgumentException().isThrownBy(() -> this.redeq.restorer().restore(job, -1))
			.withMessageContaining("-1");
		assertThat(this.redeq.client().find("restored", "r-2")).isEmpty();
	}

}
