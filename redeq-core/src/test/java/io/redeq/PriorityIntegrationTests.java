package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * Priorities: among READY jobs higher priority is claimed first, FIFO within one
 * priority, and each level counts as one minute of waiting (aging), so a flood of
 * priority-9 jobs holds a priority-0 job back by nine minutes at most. The jobs of each
 * test share one bucket, where the order is exact (see docs/topic-controls.md for the
 * order across buckets); one handler at a time records it.
 */
@RedisTest
class PriorityIntegrationTests {

	private final RedisClient lettuce;

	private Redeq redeq;

	private KeySpace keys;

	private final List<String> order = new CopyOnWriteArrayList<>();

	PriorityIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		this.redeq = Redeq.builder(this.lettuce).build();
		this.keys = new KeySpace(this.redeq.options().prefix(), this.redeq.options().buckets());
	}

	@AfterEach
	void stop() {
		this.redeq.close();
	}

	@Test
	void higherPriorityIsClaimedFirstAndFifoWithinOnePriority() {
		Instant base = Instant.now().minusSeconds(5);
		int[] priorities = { 0, 9, 5, 0, 9, 5, 0, 9, 5 };
		List<String> ids = idsInOneBucket("jobs", priorities.length);
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < priorities.length; i++) {
			jobs.add(Job.builder("jobs")
				.id(ids.get(i))
				.payload("p" + priorities[i] + "-" + i)
				.dueAt(base.plusMillis(10L * i))
				.priority(priorities[i])
				.build());
		}
		this.redeq.client().scheduleAll(jobs);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redeq.admin().stats("jobs").ready() == 9);

		consumeOneAtATime("jobs", 9);

		assertThat(this.order).containsExactly("p9-1", "p9-4", "p9-7", "p5-2", "p5-5", "p5-8", "p0-0", "p0-3", "p0-6");
	}

	/**
	 * A backlog drained one at a time with the prefetch on: the fetcher's claim, the
	 * claim a completion makes in its script and the migrator's hand-off all take jobs of
	 * the bucket, and whichever reply is handled first must not start its jobs first.
	 */
	@Test
	void aBacklogDrainedOneAtATimeStartsInExactlyTheOrderItWasScheduled() {
		Instant base = Instant.now().minusSeconds(5);
		List<String> ids = idsInOneBucket("backlog", 300);
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < ids.size(); i++) {
			jobs.add(Job.builder("backlog").id(ids.get(i)).payload(ids.get(i)).dueAt(base.plusMillis(i)).build());
		}
		this.redeq.client().scheduleAll(jobs);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redeq.admin().stats("backlog").ready() == ids.size());

		consumeOneAtATime("backlog", ids.size());

		assertThat(this.order).containsExactlyElementsOf(ids);
	}

	@Test
	void aFloodOfPriorityNineHoldsALowPriorityJobBackByNineMinutesAtMost() {
		Instant now = Instant.now();
		List<String> ids = idsInOneBucket("flood", 7);
		List<Job> jobs = new ArrayList<>();
		jobs.add(Job.builder("flood")
			.id(ids.get(0))
			.payload("p0-waited-10m")
			.dueAt(now.minus(Duration.ofMinutes(10)))
			.build());
		jobs.add(Job.builder("flood")
			.id(ids.get(1))
			.payload("p0-waited-5m")
			.dueAt(now.minus(Duration.ofMinutes(5)))
			.build());
		for (int i = 2; i < 7; i++) {
			jobs.add(Job.builder("flood")
				.id(ids.get(i))
				.payload("p9-" + i)
				.dueAt(now.plusMillis(i))
				.priority(9)
				.build());
		}
		this.redeq.client().scheduleAll(jobs);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redeq.admin().stats("flood").ready() == 7);

		consumeOneAtATime("flood", 7);

		assertThat(this.order).containsExactly("p0-waited-10m", "p9-2", "p9-3", "p9-4", "p9-5", "p9-6", "p0-waited-5m");
	}

	@Test
	void aPromotedJobKeepsItsPriorityAndEveryStateReportsItsTrueDueTime() {
		List<String> ids = idsInOneBucket("kept", 2);
		RedeqClient client = this.redeq.client();
		client.schedule(Job.builder("kept")
			.id(ids.get(0))
			.payload("p0-waited-2m")
			.dueAt(Instant.now().minus(Duration.ofMinutes(2)))
			.build());
		Instant due = Instant.now().plus(Duration.ofHours(1));
		client.schedule(Job.builder("kept").id(ids.get(1)).payload("p3-promoted").dueAt(due).priority(3).build());
		assertThat(client.find("kept", ids.get(1)).orElseThrow().dueAt())
			.isEqualTo(due.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redeq.admin().stats("kept").ready() == 1);

		assertThat(this.redeq.admin().promote("kept", ids.get(1))).isTrue();
		JobInfo promoted = client.find("kept", ids.get(1)).orElseThrow();
		assertThat(promoted.state()).isEqualTo(JobState.READY);
		assertThat(promoted.dueAt().toEpochMilli()).isCloseTo(Instant.now().toEpochMilli(), within(5000L));
		JobInfo waiting = client.find("kept", ids.get(0)).orElseThrow();
		assertThat(waiting.dueAt().toEpochMilli()).isCloseTo(Instant.now().minus(Duration.ofMinutes(2)).toEpochMilli(),
				within(5000L));

		consumeOneAtATime("kept", 2);

		assertThat(this.order).as("priority 3 counts as three minutes of waiting")
			.containsExactly("p3-promoted", "p0-waited-2m");
	}

	@Test
	void aRetriedJobAndAJobHandedBackOnShutdownKeepTheirPriority() {
		try (Redeq engine = Redeq.builder(this.lettuce).prefix("kept").buckets(1).migratorEnabled(false).build();
				RedisConnections connections = new RedisConnections(this.lettuce)) {
			RedisJobStore store = new RedisJobStore(new KeySpace("kept", 1),
					new ScriptRunner(connections, Duration.ofSeconds(10)));
			RedeqClient client = engine.client();
			client.schedule(Job.builder("prio")
				.id("old")
				.payload("x")
				.dueAt(Instant.now().minus(Duration.ofMinutes(2)))
				.build());
			client.schedule(Job.builder("prio").id("retried").payload("x").priority(9).build());
			client.schedule(Job.builder("prio").id("released").payload("x").priority(5).build());
			assertThat(store.migrate(0, 10, false, "", 10_000, 0).migrated()).isEqualTo(3);
			ClaimResult first = store.scripts().await(store.claim(0, "prio", 2, 30_000, "t:1", 5), "claim");
			assertThat(first.jobs()).extracting(ClaimedJob::id).containsExactly("retried", "released");

			store.scripts().await(store.retry(first.jobs().get(0), 0, "boom"), "retry");
			store.release(0, List.of(first.jobs().get(1)), true);
			await().atMost(Duration.ofSeconds(5)).until(() -> {
				store.migrate(0, 10, false, "", 10_000, 0);
				return engine.admin().stats("prio").ready() == 3;
			});

			ClaimResult second = store.scripts().await(store.claim(0, "prio", 3, 30_000, "t:2", 5), "claim");
			assertThat(second.jobs()).extracting(ClaimedJob::id).containsExactly("retried", "released", "old");
			assertThat(second.jobs())
				.allSatisfy((job) -> assertThat(job.dueAt()).as("the true due time, not the priority's offset")
					.isGreaterThan(Instant.now().minus(Duration.ofMinutes(3)).toEpochMilli()));
		}
	}

	private void consumeOneAtATime(String topic, int expected) {
		this.redeq.subscribe(topic, String.class, (label, delivery) -> this.order.add(label),
				SubscriptionOptions.builder().concurrency(1).build());
		await().atMost(Duration.ofSeconds(15)).until(() -> this.order.size() == expected);
	}

	private List<String> idsInOneBucket(String topic, int count) {
		List<String> ids = new ArrayList<>();
		int bucket = this.keys.bucketOf(KeySpace.jobKey(topic, "j0"));
		for (int i = 0; ids.size() < count && i < 100_000; i++) {
			if (this.keys.bucketOf(KeySpace.jobKey(topic, "j" + i)) == bucket) {
				ids.add("j" + i);
			}
		}
		return ids;
	}

}
