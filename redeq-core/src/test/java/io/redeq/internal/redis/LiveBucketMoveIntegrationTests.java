package io.redeq.internal.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.Duplicate;
import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.Recurring;
import io.redeq.Redeq;
import io.redeq.SubscriptionOptions;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.internal.redis.script.Scripts;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link Resharder#change} beside running instances on a real redis-server: the old
 * layout's buckets are frozen, so what would start or change their waiting jobs is
 * refused with a {@link LayoutChangedException} while work in flight still ends there;
 * every waiting job and recurring definition moves once, with its record, state, due time
 * and attempts; a job retried into an old bucket moves at the next pass, one whose lease
 * expired is made READY (fencing its holder) and moved; an interrupted change finishes
 * when run again; the tags both layouts use are thawed afterwards.
 */
@RedisTest
class LiveBucketMoveIntegrationTests {

	private final RedisClient lettuce;

	private final RedisConnections connections;

	private final ScriptRunner scripts;

	private final StatefulRedisConnection<String, String> raw;

	LiveBucketMoveIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
		this.connections = new RedisConnections(lettuce);
		this.scripts = new ScriptRunner(this.connections, Duration.ofSeconds(5));
		this.raw = lettuce.connect();
	}

	@AfterEach
	void close() {
		this.raw.close();
		this.connections.close();
	}

	@Test
	void everyWaitingJobAndDefinitionMovesBesideALiveInstanceAndBack() {
		String prefix = "live-a";
		List<String> jobKeys = seed(prefix, 60, 40, 5);
		try (Redeq engine = engine(prefix)) {
			for (int i = 0; i < 6; i++) {
				engine.client()
					.scheduleRecurring(Recurring.builder("tick").id("t" + i).every(Duration.ofHours(1)).build());
			}
		}
		heartbeat(prefix, "other");
		Map<String, List<String>> before = snapshot(prefix, 4, jobKeys);

		assertThat(Resharder.change(this.scripts, prefix, 8)).as("jobs moved").isPositive();
		assertThat(snapshot(prefix, 8, jobKeys)).isEqualTo(before);
		assertThat(jobsIn(prefix, 8)).isEqualTo(jobKeys.size());
		assertThat(definitionsIn(prefix, 8)).isEqualTo(6);
		assertThat(this.raw.sync().hget(prefix + ":meta", "buckets")).isEqualTo("8");

		assertThat(Resharder.change(this.scripts, prefix, 4)).as("jobs moved").isPositive();
		assertThat(snapshot(prefix, 4, jobKeys)).isEqualTo(before);
		assertThat(jobsIn(prefix, 4)).isEqualTo(jobKeys.size());
		assertThat(definitionsIn(prefix, 4)).isEqualTo(6);
		assertThat(Resharder.change(this.scripts, prefix, 4)).as("a second run moves nothing").isZero();
	}

	@Test
	void aFrozenBucketRefusesNewWorkWhileWorkInFlightEndsAndMovesNextPass() throws Exception {
		String prefix = "live-b";
		seed(prefix, 0, 40, 0);
		KeySpace old = new KeySpace(prefix, 4);
		RedisJobStore store = new RedisJobStore(old, this.scripts);
		int bucket = -1;
		List<ClaimedJob> leased = List.of();
		for (int b = 0; b < 4 && leased.size() < 2; b++) {
			leased = this.scripts.await(store.claim(b, "now", 2, 60_000, "tok-" + b, 5), "claim").jobs();
			bucket = b;
		}
		assertThat(leased).hasSize(2);
		heartbeat(prefix, "other");

		CompletableFuture<Long> change = CompletableFuture.supplyAsync(() -> Resharder.change(this.scripts, prefix, 8));
		int frozen = bucket;
		await().atMost(Duration.ofSeconds(10))
			.until(() -> "1".equals(this.raw.sync().hget(old.countKey(frozen), Resharder.FROZEN)));

		assertRefused(store.claim(bucket, "now", 1, 60_000, "tok-late", 5));
		assertRefused(store.cancel(bucket, "now:r0", "request-1"));
		assertRefused(store.find(bucket, leased.get(0).jobKey()));
		assertRefused(store.schedule(bucket, 0,
				List.of(new ScheduleRequest("now:late", "1", false, 0, Duplicate.REPLACE, JobSettings.NONE, null, 0))));
		assertThat(change).as("waits for the leased jobs").isNotDone();

		ClaimedJob completed = leased.get(0);
		ClaimedJob retried = leased.get(1);
		// A completion that also claims ends its job, and its claim takes nothing here.
		CompletionReply reply = this.scripts.await(
				store.completeAll(bucket, List.of(completed), new SlotOffer("now", 5, 60_000, "tok-next", 5)),
				"complete");
		assertThat(reply.completed()).containsExactly(true);
		assertThat(reply.claimed().jobs()).isEmpty();
		assertThat(this.scripts.await(store.retry(retried, 0, "boom"), "retry")).isPresent();

		assertThat(change.get()).isPositive();
		assertThat(jobsIn(prefix, 8)).as("all but the completed one").isEqualTo(39);
		try (Redeq after = engine(prefix)) {
			assertThat(after.options().buckets()).isEqualTo(8);
			assertThat(after.client().find("now", id(completed))).isEmpty();
			JobInfo moved = after.client().find("now", id(retried)).orElseThrow();
			assertThat(moved.attempts()).isEqualTo(1);
			assertThat(moved.state()).isIn(JobState.DELAYED, JobState.READY);
		}
	}

	@Test
	void aJobWhoseLeaseExpiredIsRecoveredAndMovedOnceAndItsHolderIsFenced() {
		String prefix = "live-c";
		seed(prefix, 0, 12, 0);
		KeySpace old = new KeySpace(prefix, 4);
		RedisJobStore store = new RedisJobStore(old, this.scripts);
		List<ClaimedJob> leased = List.of();
		int bucket = -1;
		for (int b = 0; b < 4 && leased.isEmpty(); b++) {
			leased = this.scripts.await(store.claim(b, "now", 1, 1, "tok-dead" + b, 5), "claim").jobs();
			bucket = b;
		}
		ClaimedJob dead = leased.get(0);
		int holder = bucket;
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			List<String> time = this.raw.sync().time();
			long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
			return this.raw.sync().zscore(old.leaseKey(holder), dead.jobKey()) < now;
		});
		heartbeat(prefix, "other");
		String before = this.raw.sync().hget(old.payloadKey(holder), dead.jobKey());

		assertThat(Resharder.change(this.scripts, prefix, 8)).isPositive();
		assertThat(this.scripts.await(store.completeAll(bucket, List.of(dead)), "complete")).as("fenced")
			.containsExactly(false);
		assertThat(jobsIn(prefix, 8)).isEqualTo(12);
		KeySpace now = new KeySpace(prefix, 8);
		String record = this.raw.sync().hget(now.payloadKey(now.bucketOf(dead.jobKey())), dead.jobKey());
		assertThat(record).isEqualTo(before);
		try (Redeq after = engine(prefix)) {
			JobInfo moved = after.client().find("now", id(dead)).orElseThrow();
			assertThat(moved.state()).isEqualTo(JobState.READY);
			assertThat(moved.attempts()).as("the attempt counts").isEqualTo(1);
		}
	}

	@Test
	void anInterruptedChangeFinishesWhenRunAgainWithTheSameCount() {
		String prefix = "live-d";
		List<String> jobKeys = seed(prefix, 30, 10, 0);
		Map<String, List<String>> before = snapshot(prefix, 4, jobKeys);
		KeySpace from = new KeySpace(prefix, 4);
		KeySpace to = new KeySpace(prefix, 8);
		// What a change that died after copying some jobs leaves: the change recorded,
		// the buckets frozen, copies in the new layout whose old copies are still there.
		new JobQueries(to, this.scripts).recordChangeBegun(8);
		new Resharder(from, to, this.scripts).freezeAndMark();
		RedisCommands<String, String> redis = this.raw.sync();
		int copied = 0;
		for (String jobKey : jobKeys.subList(0, 15)) {
			int b = from.bucketOf(jobKey);
			Double due = redis.zscore(from.dueKey(b), jobKey);
			if (due != null) {
				this.scripts.run(Scripts.RESHARD_IMPORT, to.jobScriptKeys(to.bucketOf(jobKey), List.of("later")),
						"later", jobKey, redis.hget(from.payloadKey(b), jobKey), "", "", "D",
						java.math.BigDecimal.valueOf(due).toPlainString());
				copied++;
			}
		}
		assertThat(copied).isPositive();
		assertThat(jobsIn(prefix, 4) + jobsIn(prefix, 8)).isEqualTo(jobKeys.size() + copied);

		Resharder.change(this.scripts, prefix, 8);
		assertThat(snapshot(prefix, 8, jobKeys)).isEqualTo(before);
		assertThat(jobsIn(prefix, 8)).isEqualTo(jobKeys.size());
		assertThat(redis.hget(prefix + ":meta", "buckets")).isEqualTo("8");
		assertThat(redis.hget(prefix + ":meta", "buckets-changing-to")).isNull();
	}

	@Test
	void theTagsBothLayoutsUseAreThawedAfterTheChange() {
		String prefix = prefixWithReusedTag();
		List<String> jobKeys = seed(prefix, 20, 0, 0);
		heartbeat(prefix, "other");
		Resharder.change(this.scripts, prefix, 8);
		KeySpace from = new KeySpace(prefix, 4);
		KeySpace to = new KeySpace(prefix, 8);
		int reused = 0;
		for (int b = 0; b < 8; b++) {
			assertThat(this.raw.sync().hexists(to.countKey(b), Resharder.FROZEN)).as(to.tag(b)).isFalse();
			assertThat(this.raw.sync().hget(to.countKey(b), "~buckets")).isEqualTo("8");
		}
		for (int b = 0; b < 4; b++) {
			if (!isUsedBy(to, from.tag(b))) {
				assertThat(this.raw.sync().hget(from.countKey(b), Resharder.FROZEN)).as("unused " + from.tag(b))
					.isEqualTo("1");
			}
			else {
				reused++;
			}
		}
		assertThat(reused).isPositive();
		assertThat(jobsIn(prefix, 8)).isEqualTo(jobKeys.size());
		try (Redeq after = engine(prefix)) {
			after.client()
				.schedule(Job.builder("later").id("after").payload(JOB_PAYLOAD).delay(Duration.ofHours(1)).build());
			assertThat(after.client().find("later", "after")).isPresent();
		}
	}

	private static final String JOB_PAYLOAD = "\"p\"";

	/** A prefix one of whose tags the 4- and the 8-bucket layout share. */
	private static String prefixWithReusedTag() {
		for (int i = 0;; i++) {
			String prefix = "live-e" + i;
			KeySpace to = new KeySpace(prefix, 8);
			KeySpace from = new KeySpace(prefix, 4);
			for (int b = 0; b < 4; b++) {
				if (isUsedBy(to, from.tag(b))) {
					return prefix;
				}
			}
		}
	}

	private static boolean isUsedBy(KeySpace space, String tag) {
		for (int b = 0; b < space.buckets(); b++) {
			if (space.tag(b).equals(tag)) {
				return true;
			}
		}
		return false;
	}

	private void assertRefused(CompletionStage<?> reply) {
		assertThatExceptionOfType(LayoutChangedException.class).isThrownBy(() -> this.scripts.await(reply, "test"))
			.withMessageStartingWith("ERR redeq-layout:")
			.withMessageContaining(" 8");
		// An asynchronous caller gets the same exception.
		assertThatExceptionOfType(CompletionException.class)
			.isThrownBy(() -> ScriptRunner.translated(reply, "test").join())
			.withCauseInstanceOf(LayoutChangedException.class);
	}

	/**
	 * Delayed jobs in topic "later", ready ones in "now" and dead ones in "failing" (one
	 * attempt, its error kept), on 4 buckets; returns their jobKeys.
	 */
	private List<String> seed(String prefix, int delayed, int ready, int dead) {
		List<String> jobKeys = new ArrayList<>();
		try (Redeq first = Redeq.builder(this.lettuce).prefix(prefix).buckets(4).build()) {
			first.subscribe("failing", String.class, (payload, delivery) -> {
				throw new IllegalStateException("no luck with " + payload);
			}, SubscriptionOptions.builder().maxAttempts(1).build());
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < delayed; i++) {
				jobs.add(Job.builder("later").id("d" + i).payload(JOB_PAYLOAD).delay(Duration.ofHours(1)).build());
				jobKeys.add("later:d" + i);
			}
			for (int i = 0; i < ready; i++) {
				jobs.add(Job.builder("now").id("r" + i).payload(JOB_PAYLOAD).build());
				jobKeys.add("now:r" + i);
			}
			for (int i = 0; i < dead; i++) {
				jobs.add(Job.builder("failing").id("f" + i).payload("f" + i).build());
				jobKeys.add("failing:f" + i);
			}
			first.client().scheduleAll(jobs);
			await().atMost(Duration.ofSeconds(20))
				.until(() -> first.admin().stats("now").ready() == ready
						&& first.admin().stats("failing").dead() == dead);
		}
		return jobKeys;
	}

	private Redeq engine(String prefix) {
		return Redeq.builder(this.lettuce).prefix(prefix).buckets(4).migratorEnabled(false).build();
	}

	/** Another instance that heartbeats for the next minute. */
	private void heartbeat(String prefix, String instanceId) {
		List<String> time = this.raw.sync().time();
		long now = Long.parseLong(time.get(0)) * 1000;
		this.raw.sync().zadd(new KeySpace(prefix, 1).instancesKey(), now + 60_000, instanceId);
	}

	/**
	 * Per job: its record (created time, settings, payload), attempt record, last error,
	 * and its state with its score, read where the layout of {@code buckets} looks.
	 */
	private Map<String, List<String>> snapshot(String prefix, int buckets, List<String> jobKeys) {
		KeySpace space = new KeySpace(prefix, buckets);
		RedisCommands<String, String> redis = this.raw.sync();
		Map<String, List<String>> jobs = new HashMap<>();
		for (String jobKey : jobKeys) {
			int b = space.bucketOf(jobKey);
			String topic = KeySpace.topicOf(jobKey);
			List<String> job = new ArrayList<>();
			job.add(redis.hget(space.payloadKey(b), jobKey));
			job.add(redis.hget(space.payloadKey(b), KeySpace.attemptField(jobKey)));
			job.add(redis.hget(space.errorKey(b), jobKey));
			job.add("D" + redis.zscore(space.dueKey(b), jobKey));
			job.add("R" + redis.zscore(space.readyKey(b, topic), jobKey));
			job.add("X" + redis.zscore(space.diedKey(b), jobKey) + "/" + redis.zscore(space.deadKey(b, topic), jobKey));
			assertThat(job.get(0)).as(jobKey).isNotNull();
			jobs.put(jobKey, job);
		}
		return jobs;
	}

	/** The job records held in the buckets of a layout. */
	private long jobsIn(String prefix, int buckets) {
		KeySpace space = new KeySpace(prefix, buckets);
		long jobs = 0;
		for (int b = 0; b < buckets; b++) {
			jobs += this.raw.sync()
				.hkeys(space.payloadKey(b))
				.stream()
				.filter((field) -> !KeySpace.isAttemptField(field))
				.count();
		}
		return jobs;
	}

	/**
	 * The recurring definitions held in the buckets of a layout, each where it belongs.
	 */
	private long definitionsIn(String prefix, int buckets) {
		KeySpace space = new KeySpace(prefix, buckets);
		long definitions = 0;
		for (int b = 0; b < buckets; b++) {
			for (String field : this.raw.sync().hkeys(space.recurringKey(b))) {
				if (!field.startsWith("~")) {
					assertThat(space.bucketOf(field)).as(field).isEqualTo(b);
					definitions++;
				}
			}
		}
		return definitions;
	}

	private static String id(ClaimedJob job) {
		return job.jobKey().substring(job.jobKey().indexOf(':') + 1);
	}

}
