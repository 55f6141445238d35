package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import io.redeq.test.CommandStats;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The migrator hands due jobs straight to its own engine's idle consumers: no signal, no
 * claim; jobs handed over a little ahead of their due time start no earlier than it; jobs
 * falling due close together are handed over and completed a few per script; a busy
 * consumer's jobs wait READY as before; and a consumer closed while jobs are being handed
 * to it loses none.
 */
@RedisTest
class HandOffIntegrationTests {

	private final RedisClient lettuce;

	HandOffIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@Test
	void dueJobsReachAnIdleConsumerWithoutASignalOrAClaim() {
		Set<String> done = ConcurrentHashMap.newKeySet();
		// No sweep during the test: only the due-time path migrates.
		try (Redeq redeq = Redeq.builder(this.lettuce).sweepInterval(Duration.ofSeconds(60)).build()) {
			redeq.subscribe("mail", String.class, (payload, delivery) -> done.add(delivery.id()),
					SubscriptionOptions.builder().concurrency(4).build());
			await().atMost(Duration.ofSeconds(10)).until(() -> redeq.ownedBuckets().length == 16);
			resetStats();

			for (int i = 0; i < 20; i++) {
				redeq.client()
					.schedule(Job.builder("mail")
						.id("m-" + i)
						.payload("x")
						.delay(Duration.ofMillis(300 + 50L * i))
						.build());
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 20);

			assertThat(CommandStats.calls(this.lettuce, "rpush"::equals)).as("signals pushed").isZero();
			assertThat(CommandStats.calls(this.lettuce, "zpopmin"::equals)).as("claims that popped READY jobs")
				.isZero();
			await().atMost(Duration.ofSeconds(5)).until(() -> redeq.admin().stats("mail").pending() == 0);
		}
	}

	@Test
	void jobsHandedOverAheadOfTheirDueTimeStartNoEarlierThanIt() {
		Map<String, Long> startedAt = new ConcurrentHashMap<>();
		Map<String, Long> dueAt = new ConcurrentHashMap<>();
		try (Redeq redeq = Redeq.builder(this.lettuce).sweepInterval(Duration.ofSeconds(60)).build()) {
			redeq.subscribe("mail", String.class,
					(payload, delivery) -> startedAt.put(delivery.id(), System.currentTimeMillis()),
					SubscriptionOptions.builder().concurrency(4).build());
			await().atMost(Duration.ofSeconds(10)).until(() -> redeq.ownedBuckets().length == 16);

			long base = System.currentTimeMillis() + 300;
			for (int i = 0; i < 200; i++) {
				long due = base + 3L * i;
				dueAt.put("m-" + i, due);
				redeq.client()
					.schedule(Job.builder("mail").id("m-" + i).payload("x").dueAt(Instant.ofEpochMilli(due)).build());
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> startedAt.size() == 200);

			// redis-server runs on this machine: its clock is the one read here.
			assertThat(startedAt)
				.allSatisfy((id, started) -> assertThat(started).as(id).isGreaterThanOrEqualTo(dueAt.get(id)));
			await().atMost(Duration.ofSeconds(5)).until(() -> redeq.admin().stats("mail").pending() == 0);
		}
	}

	@Test
	void jobsFallingDueCloseTogetherAreHandedOverAndCompletedInFarFewerScriptsThanJobs() {
		int total = 40;
		Set<String> done = ConcurrentHashMap.newKeySet();
		try (Redeq redeq = oneBucketWithAWarmConsumer("gather", done)) {
			scheduleApart(redeq, total, 3);
			resetStats();

			await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 20 + total);
			await().atMost(Duration.ofSeconds(5)).until(() -> redeq.admin().stats("mail").pending() == 0);

			// One migrate call and one complete script per job would be 80 scripts: each
			// call taking only what is due within the lead, each completion going alone.
			// A call takes the jobs of its look-ahead, and a completion waits for the
			// others of its bucket.
			assertThat(CommandStats.scriptCalls(this.lettuce)).as("scripts for %d jobs", total).isLessThan(total);
		}
	}

	@Test
	void theCompletionsOfJobsHandedOverRideOnTheMigratorsNextCallsInsteadOfScriptsOfTheirOwn() {
		int total = 40;
		Set<String> done = ConcurrentHashMap.newKeySet();
		try (Redeq redeq = oneBucketWithAWarmConsumer("ride", done)) {
			await().atMost(Duration.ofSeconds(5)).until(() -> redeq.admin().stats("mail").pending() == 0);
			// W3's pace in one bucket: a job every 8 ms, each due on its own.
			scheduleApart(redeq, total, 8);
			try (SlowLog scripts = SlowLog.everyCommand(this.lettuce)) {
				await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 20 + total);
				await().atMost(Duration.ofSeconds(5)).until(() -> redeq.admin().stats("mail").pending() == 0);

				// Completing on their own, 40 jobs finishing 8 ms apart would take a
				// script per 20 ms of linger: about 16. Riding, the last ones at most
				// go alone, once the hand-offs have stopped.
				assertThat(scripts.functionCalls("_migrate")).as("migrate calls").isPositive();
				assertThat(scripts.functionCalls("_complete")).as("complete scripts for %d jobs", total)
					.isLessThanOrEqualTo(3);
			}
		}
	}

	@Test
	void aBusyConsumersJobWaitsReadyAndRunsWhenASlotFrees() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		List<String> order = new CopyOnWriteArrayList<>();
		try (Redeq redeq = Redeq.builder(this.lettuce).build()) {
			redeq.subscribe("report", String.class, (payload, delivery) -> {
				order.add(delivery.id());
				if (delivery.id().equals("first")) {
					release.await(10, TimeUnit.SECONDS);
				}
			}, SubscriptionOptions.builder().concurrency(1).build());
			redeq.client().schedule(Job.builder("report").id("first").payload("a").build());
			await().atMost(Duration.ofSeconds(10)).until(() -> order.contains("first"));

			redeq.client()
				.schedule(Job.builder("report").id("second").payload("b").delay(Duration.ofMillis(100)).build());
			await().atMost(Duration.ofSeconds(10))
				.until(() -> redeq.client()
					.find("report", "second")
					.map(JobInfo::state)
					.orElse(null) == JobState.READY);
			release.countDown();

			await().atMost(Duration.ofSeconds(10)).until(() -> order.size() == 2);
			assertThat(order).containsExactly("first", "second");
		}
	}

	@Test
	void aConsumerClosedWhileJobsAreHandedToItLosesNone() {
		int total = 400;
		Map<String, Integer> runs = new ConcurrentHashMap<>();
		try (Redeq staying = Redeq.builder(this.lettuce).instanceId("staying").build();
				Redeq leaving = Redeq.builder(this.lettuce).instanceId("leaving").build()) {
			Subscription leavingConsumer = leaving.subscribe("sms", String.class,
					(payload, delivery) -> runs.merge(delivery.id(), 1, Integer::sum),
					SubscriptionOptions.builder().concurrency(2).build());
			staying.subscribe("sms", String.class, (payload, delivery) -> runs.merge(delivery.id(), 1, Integer::sum),
					SubscriptionOptions.builder().concurrency(2).build());
			for (int i = 0; i < total; i++) {
				staying.client()
					.schedule(Job.builder("sms")
						.id("s-" + i)
						.payload("x")
						.delay(Duration.ofMillis(200 + 5L * i))
						.build());
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() >= total / 4);
			leavingConsumer.close();

			await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() == total);
			await().atMost(Duration.ofSeconds(10)).until(() -> staying.admin().stats("sms").pending() == 0);
			// At least once is the promise; a handler that ran is completed before close
			// returns, so nothing here should run twice either.
			assertThat(runs.values()).as("runs per job").allMatch((count) -> count == 1);
		}
	}

	/**
	 * One bucket, so every job is the next one's neighbour, no sweep during the test, and
	 * a consumer of "mail" that already ran 20 jobs: quick handlers open the prefetch
	 * slots, where jobs may wait for their due time, and the first runs after a start are
	 * slow (classes loading).
	 */
	private Redeq oneBucketWithAWarmConsumer(String prefix, Set<String> done) {
		Redeq redeq = Redeq.builder(this.lettuce)
			.prefix(prefix)
			.buckets(1)
			.sweepInterval(Duration.ofSeconds(60))
			.build();
		redeq.subscribe("mail", String.class, (payload, delivery) -> done.add(delivery.id()),
				SubscriptionOptions.builder().concurrency(4).build());
		await().atMost(Duration.ofSeconds(10)).until(() -> redeq.ownedBuckets().length == 1);
		for (int i = 0; i < 20; i++) {
			redeq.client().schedule(Job.builder("mail").id("warm-" + i).payload("x").build());
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 20);
		return redeq;
	}

	/**
	 * Schedules {@code count} jobs m-0, m-1, ... due from 500 ms on, {@code apartMillis}
	 * apart.
	 */
	private static void scheduleApart(Redeq redeq, int count, long apartMillis) {
		long base = System.currentTimeMillis() + 500;
		for (int i = 0; i < count; i++) {
			redeq.client()
				.schedule(Job.builder("mail")
					.id("m-" + i)
					.payload("x")
					.dueAt(Instant.ofEpochMilli(base + apartMillis * i))
					.build());
		}
	}

	private void resetStats() {
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			connection.sync().configResetstat();
		}
	}

}
