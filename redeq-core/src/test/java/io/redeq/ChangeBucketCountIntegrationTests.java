package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedeqAdmin#changeBucketCount(int)} on a real redis-server: every job (delayed,
 * ready, dead with its attempts and error) and every recurring definition reaches its
 * bucket of the new layout, instances started afterwards follow the recorded count
 * whatever they are configured with and say so once, every moved job then runs exactly
 * once, and a change runs beside live instances, which follow it without a restart.
 */
@RedisTest
class ChangeBucketCountIntegrationTests {

	private static final int DELAYED = 300;

	private static final int READY = 200;

	private static final int DEAD = 20;

	private static final int RECURRING = 30;

	private final RedisClient lettuce;

	ChangeBucketCountIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@Test
	void aCountThatIsNotAPowerOfTwoOrTooLargeIsRefused() {
		try (Redeq admin = idle("bad", 16)) {
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> admin.admin().changeBucketCount(48))
				.withMessageContaining("48")
				.withMessageContaining("power of two");
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> admin.admin().changeBucketCount(2048))
				.withMessageContaining("2048")
				.withMessageContaining("1024");
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> admin.admin().changeBucketCount(0));
		}
	}

	@Test
	void aStartedEngineChangesTheCountBesideALiveInstanceAndBothFollowIt() {
		try (Redeq running = Redeq.builder(this.lettuce).prefix("live").instanceId("runner").build();
				Redeq other = Redeq.builder(this.lettuce).prefix("live").instanceId("other").build()) {
			String id = running.client().schedule("kept", "x", Duration.ofHours(1));
			// One job, moved unless its bucket's tag is the same in both layouts.
			assertThat(running.admin().changeBucketCount(32)).as("jobs moved").isBetween(0L, 1L);
			assertThat(recordedCount("live")).isEqualTo("32");
			assertThat(running.options().buckets()).as("the engine that changed it, at once").isEqualTo(32);
			// The other one finds the refusal of its old buckets or the new layout at its
			// next heartbeat, follows it, and finds the moved job.
			assertThat(other.client().find("kept", id))
				.hasValueSatisfying((job) -> assertThat(job.state()).isEqualTo(JobState.DELAYED));
			assertThat(other.options().buckets()).isEqualTo(32);
			assertThat(other.client().schedule("kept", "y", Duration.ofHours(1))).isNotBlank();
			assertThat(running.admin().stats("kept").delayed()).isEqualTo(2);
		}
	}

	@Test
	void anEngineStillOnTheOldCountIsRefusedByABucketBothLayoutsUseAndFindsTheMovedJob() {
		String prefix = prefixWhoseFirstBucketKeepsItsTag();
		String id = idThatMovesOutOfTheFirstBucket(prefix);
		try (Redeq stale = onTheOldCountAfterAChange(prefix, id)) {
			assertThat(stale.client().find("t", id)).as("refused on the old count, found on the new one")
				.hasValueSatisfying((job) -> assertThat(job.state()).isEqualTo(JobState.DELAYED));
			assertThat(stale.options().buckets()).isEqualTo(32);
			assertThat(stale.client().cancel("t", id)).isTrue();
		}
	}

	@Test
	void theAdminOfAnEngineStillOnTheOldCountIsRefusedByABucketBothLayoutsUseAndMovesTheMovedJob() {
		String prefix = prefixWhoseFirstBucketKeepsItsTag();
		String id = idThatMovesOutOfTheFirstBucket(prefix);
		try (Redeq stale = onTheOldCountAfterAChange(prefix, id)) {
			assertThat(stale.admin().promote("t", id)).as("refused on the old count, promoted on the new one").isTrue();
			assertThat(stale.options().buckets()).isEqualTo(32);
			assertThat(stale.admin().job("t", id))
				.hasValueSatisfying((job) -> assertThat(job.state()).isEqualTo(JobState.READY));
			assertThat(stale.admin().purge("t", JobState.READY)).as("the purge finds it on the new layout")
				.isEqualTo(1);
			assertThat(stale.admin().job("t", id)).isEmpty();
		}
	}

	/**
	 * An engine on 16 buckets that scheduled {@code id} in topic {@code t}, after another
	 * engine changed the count to 32 and before anything told it.
	 * @param prefix the prefix
	 * @param id the job's id
	 * @return the engine, still on 16 buckets
	 */
	private Redeq onTheOldCountAfterAChange(String prefix, String id) {
		Redeq stale = Redeq.builder(this.lettuce).prefix(prefix).buckets(16).migratorEnabled(false).build();
		try {
			stale.client().schedule(Job.builder("t").id(id).payload("x").delay(Duration.ofHours(1)).build());
			try (Redeq admin = idle(prefix, 16)) {
				assertThat(admin.admin().changeBucketCount(32)).isPositive();
			}
			assertThat(stale.options().buckets()).as("nothing told it yet").isEqualTo(16);
			return stale;
		}
		catch (RuntimeException | AssertionError ex) {
			stale.close();
			throw ex;
		}
	}

	/**
	 * A prefix whose bucket 0 keeps its hash tag from 16 to 32 buckets: after a change
	 * the tag is a bucket of the new layout, which must not answer an engine still on 16
	 * buckets for a job that moved out of it.
	 * @return the prefix
	 */
	private static String prefixWhoseFirstBucketKeepsItsTag() {
		return IntStream.range(0, 1000)
			.mapToObj((i) -> "reused-" + i)
			.filter((candidate) -> new KeySpace(candidate, 16).tag(0).equals(new KeySpace(candidate, 32).tag(0)))
			.findFirst()
			.orElseThrow();
	}

	/**
	 * An id of topic {@code t} in bucket 0 on 16 buckets and in another bucket on 32.
	 * @param prefix the prefix
	 * @return the id
	 */
	private static String idThatMovesOutOfTheFirstBucket(String prefix) {
		KeySpace before = new KeySpace(prefix, 16);
		KeySpace after = new KeySpace(prefix, 32);
		return IntStream.range(0, 100_000)
			.mapToObj((i) -> "j" + i)
			.filter((candidate) -> before.bucketOf(KeySpace.jobKey("t", candidate)) == 0
					&& after.bucketOf(KeySpace.jobKey("t", candidate)) != 0)
			.findFirst()
			.orElseThrow();
	}

	@Test
	void everyJobAndRecurringDefinitionMovesAndNewInstancesFollowTheRecordedCountOnce() {
		String prefix = "grow";
		List<String> delayed = new ArrayList<>();
		List<String> ready = new ArrayList<>();
		try (Redeq first = Redeq.builder(this.lettuce).prefix(prefix).build()) {
			first.subscribe("failing", String.class, (payload, delivery) -> {
				throw new IllegalStateException("no luck with " + payload);
			}, SubscriptionOptions.builder().maxAttempts(1).build());
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < DELAYED; i++) {
				jobs.add(Job.builder("later").id("d" + i).payload(i).delay(Duration.ofHours(1)).build());
				delayed.add("d" + i);
			}
			for (int i = 0; i < READY; i++) {
				jobs.add(Job.builder("now").id("r" + i).payload(i).build());
				ready.add("r" + i);
			}
			for (int i = 0; i < DEAD; i++) {
				jobs.add(Job.builder("failing").id("f" + i).payload("f" + i).build());
			}
			first.client().scheduleAll(jobs);
			for (int i = 0; i < RECURRING; i++) {
				first.client()
					.scheduleRecurring(Recurring.builder("tick").id("t" + i).every(Duration.ofHours(1)).build());
			}
			await().atMost(Duration.ofSeconds(20))
				.until(() -> first.admin().stats("now").ready() == READY
						&& first.admin().stats("failing").dead() == DEAD);
		}

		ListAppender<ILoggingEvent> logs = captureLogs();
		try {
			assertThat(change(prefix, 16, 64)).as("jobs moved").isGreaterThan((DELAYED + READY) / 2);
			assertEverythingIsThere(prefix, 64, delayed, ready);
			assertThat(follows(logs, prefix, 64)).as("one line per engine built").isEqualTo(1);

			assertThat(change(prefix, 16, 4)).as("jobs moved").isGreaterThan((DELAYED + READY) / 2);
			assertThat(change(prefix, 16, 4)).as("a second run moves nothing").isZero();
			assertEverythingIsThere(prefix, 4, delayed, ready);
			assertThat(follows(logs, prefix, 4)).isEqualTo(1);
		}
		finally {
			((Logger) LoggerFactory.getLogger(Redeq.class)).detachAppender(logs);
		}

		// Engines configured with the old count run every moved job exactly once.
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		try (Redeq a = Redeq.builder(this.lettuce).prefix(prefix).buckets(16).build();
				Redeq b = Redeq.builder(this.lettuce).prefix(prefix).buckets(16).build()) {
			for (Redeq engine : List.of(a, b)) {
				engine.subscribe("now", Integer.class, (payload,
						delivery) -> runs.computeIfAbsent(delivery.id(), (id) -> new AtomicInteger()).incrementAndGet(),
						SubscriptionOptions.builder().concurrency(4).build());
			}
			await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() == READY);
			await().atMost(Duration.ofSeconds(5)).until(() -> a.admin().stats("now").pending() == 0);
		}
		assertThat(runs.keySet()).containsExactlyInAnyOrderElementsOf(ready);
		assertThat(runs.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
	}

	@Test
	void anEngineStartedDuringAnInterruptedChangeHoldsUntilItIsFinishedThenFollowsIt() {
		String prefix = "halfway";
		try (Redeq first = idle(prefix, 16)) {
			first.start();
			first.client().schedule(Job.builder("later").id("x").payload(1).delay(Duration.ofHours(1)).build());
		}
		// What a change that died after recording its target leaves behind.
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			connection.sync().hset(prefix + ":meta", "buckets-changing-to", "32");
		}
		try (Redeq started = Redeq.builder(this.lettuce).prefix(prefix).lockTtl(Duration.ofSeconds(1)).build()) {
			await().atMost(Duration.ofSeconds(5)).until(() -> started.ownedBuckets().length == 0);
			assertThat(started.options().buckets()).as("held on the recorded count").isEqualTo(16);
			try (Redeq admin = idle(prefix, 16)) {
				assertThatExceptionOfType(IllegalStateException.class)
					.isThrownBy(() -> admin.admin().changeBucketCount(64))
					.withMessageContaining("change it to 32 first");
				admin.admin().changeBucketCount(32);
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> started.ownedBuckets().length == 32);
			assertThat(started.options().buckets()).isEqualTo(32);
			assertThat(started.client().find("later", "x")).isPresent();
		}
	}

	private long change(String prefix, int configured, int buckets) {
		try (Redeq admin = idle(prefix, configured)) {
			return admin.admin().changeBucketCount(buckets);
		}
	}

	private void assertEverythingIsThere(String prefix, int buckets, List<String> delayed, List<String> ready) {
		try (Redeq engine = Redeq.builder(this.lettuce).prefix(prefix).buckets(16).migratorEnabled(false).build()) {
			assertThat(engine.options().buckets()).isEqualTo(buckets);
			assertThat(recordedCount(prefix)).isEqualTo(Integer.toString(buckets));
			RedeqAdmin admin = engine.admin();
			assertThat(admin.stats("later").delayed()).isEqualTo(DELAYED);
			assertThat(admin.stats("now").ready()).isEqualTo(READY);
			assertThat(admin.stats("failing").dead()).isEqualTo(DEAD);
			for (String id : delayed) {
				assertThat(engine.client().find("later", id)).as(id)
					.hasValueSatisfying((job) -> assertThat(job.state()).isEqualTo(JobState.DELAYED));
			}
			for (String id : ready) {
				assertThat(engine.client().find("now", id)).as(id)
					.hasValueSatisfying((job) -> assertThat(job.state()).isEqualTo(JobState.READY));
			}
			assertThat(admin.deadJobs("failing", 0, 100)).hasSize(DEAD).allSatisfy((dead) -> {
				assertThat(dead.attempts()).as(dead.id()).isEqualTo(1);
				assertThat(dead.lastError()).as(dead.id()).contains("no luck with " + dead.id());
			});
			assertThat(admin.recurring()).hasSize(RECURRING);
			for (int i = 0; i < RECURRING; i++) {
				// Found where the new layout looks for it: cancelling it finds it.
				assertThat(engine.client().cancelRecurring("tick", "t" + i)).as("t" + i).isTrue();
				engine.client()
					.scheduleRecurring(Recurring.builder("tick").id("t" + i).every(Duration.ofHours(1)).build());
			}
		}
	}

	private Redeq idle(String prefix, int buckets) {
		return Redeq.builder(this.lettuce).prefix(prefix).buckets(buckets).autoStartup(false).build();
	}

	private String recordedCount(String prefix) {
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			return connection.sync().hget(prefix + ":meta", "buckets");
		}
	}

	private static ListAppender<ILoggingEvent> captureLogs() {
		ListAppender<ILoggingEvent> logs = new ListAppender<>();
		logs.start();
		((Logger) LoggerFactory.getLogger(Redeq.class)).addAppender(logs);
		return logs;
	}

	/** How many times an engine said it follows {@code buckets} buckets of the prefix. */
	private static long follows(ListAppender<ILoggingEvent> logs, String prefix, int buckets) {
		synchronized (logs.list) {
			return logs.list.stream()
				.filter((event) -> event.getLevel() == Level.WARN)
				.map(ILoggingEvent::getFormattedMessage)
				.filter((message) -> message.contains("prefix '" + prefix + "' is laid out in " + buckets + " buckets")
						&& message.contains("configured with 16"))
				.count();
		}
	}

}
