package io.redeq.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * The one door to job state in Redis: a method per state change, each one Lua script on
 * one bucket's keys (so each is atomic and Cluster-safe). Reads that change nothing use
 * plain commands.
 */
public final class RedisJobStore {

	private final KeySpace keys;

	private final ScriptRunner scripts;

	public RedisJobStore(KeySpace keys, ScriptRunner scripts) {
		this.keys = keys;
		this.scripts = scripts;
	}

	public KeySpace keys() {
		return this.keys;
	}

	public ScriptRunner scripts() {
		return this.scripts;
	}

	RedisClusterAsyncCommands<String, String> commands() {
		return this.scripts.connections().commands();
	}

	private String[] args(int bucket, Object... rest) {
		String[] args = new String[rest.length + 1];
		args[0] = this.keys.tag(bucket);
		for (int i = 0; i < rest.length; i++) {
			args[i + 1] = String.valueOf(rest[i]);
		}
		return args;
	}

	// ---- producer side
	// -------------------------------------------------------------------

	/**
	 * Writes jobs of one bucket in one atomic script; the outcomes come in request order.
	 */
	public CompletionStage<List<ScheduleOutcome>> schedule(int bucket, long capacityPerBucket,
			List<ScheduleRequest> requests) {
		String[] args = new String[3 + requests.size() * 5];
		args[0] = this.keys.tag(bucket);
		args[1] = Long.toString(capacityPerBucket);
		args[2] = Integer.toString(requests.size());
		int i = 3;
		for (ScheduleRequest request : requests) {
			args[i++] = request.jobKey();
			args[i++] = request.payload();
			args[i++] = request.absolute() ? "at" : "in";
			args[i++] = Long.toString(request.millis());
			args[i++] = request.policyCode();
		}
		CompletionStage<List<Object>> reply = this.scripts.runAsync(Scripts.SCHEDULE, this.keys.bucketKeys(bucket),
				args);
		return reply.thenApply((values) -> {
			List<ScheduleOutcome> outcomes = new ArrayList<>(requests.size());
			for (int j = 0; j + 2 < values.size(); j += 3) {
				outcomes.add(new ScheduleOutcome(String.valueOf(values.get(j)), String.valueOf(values.get(j + 1)),
						asLong(values.get(j + 2)) == 1));
			}
			return outcomes;
		});
	}

	public boolean cancel(int bucket, String jobKey) {
		Long cancelled = this.scripts.run(Scripts.CANCEL, this.keys.bucketKeys(bucket), args(bucket, jobKey));
		return cancelled == 1;
	}

	/**
	 * Moves a waiting job's due time; returns the new due time, or empty if it could not.
	 */
	public Optional<ScheduleOutcome> reschedule(int bucket, String jobKey, boolean absolute, long millis) {
		List<Object> reply = this.scripts.run(Scripts.RESCHEDULE, this.keys.bucketKeys(bucket),
				args(bucket, jobKey, absolute ? "at" : "in", millis));
		if (asLong(reply.get(0)) != 1) {
			return Optional.empty();
		}
		return Optional.of(new ScheduleOutcome("rescheduled", String.valueOf(reply.get(1)), asLong(reply.get(2)) == 1));
	}

	public Optional<StoredJob> find(int bucket, String jobKey) {
		String record = this.scripts.await(commands().hget(this.keys.jobsKey(bucket), jobKey), "find " + jobKey);
		return Optional.ofNullable(record).map((value) -> StoredJob.parse(jobKey, value));
	}

	// ---- migrator
	// ------------------------------------------------------------------------

	public boolean tryLock(int bucket, String owner, long ttlMillis) {
		String reply = this.scripts
			.await(commands().set(this.keys.lockKey(bucket), owner, SetArgs.Builder.nx().px(ttlMillis)), "lock bucket");
		return "OK".equals(reply);
	}

	public boolean unlock(int bucket, String owner) {
		Long released = this.scripts.run(Scripts.UNLOCK, this.keys.bucketKeys(bucket), args(bucket, owner));
		return released == 1;
	}

	/**
	 * Moves due jobs of one bucket. A sweep also renews the caller's lock, reclaims
	 * expired leases and drops dead jobs past retention; a migrate woken by a due job
	 * does only the moving, so the common path stays a few commands long.
	 */
	public MigrateResult migrate(int bucket, int batchSize, boolean sweep, String lockOwner, long lockTtlMillis,
			long deadRetentionMillis) {
		List<Object> reply = this.scripts.run(Scripts.MIGRATE, this.keys.bucketKeys(bucket), args(bucket, batchSize,
				sweep ? lockOwner : "", lockTtlMillis, sweep ? deadRetentionMillis : 0, sweep ? 1 : 0));
		Map<String, Integer> readyByTopic = new LinkedHashMap<>();
		for (int i = 6; i + 1 < reply.size(); i += 2) {
			readyByTopic.put(String.valueOf(reply.get(i)), (int) asLong(reply.get(i + 1)));
		}
		return new MigrateResult(asLong(reply.get(0)), asLong(reply.get(1)), asLong(reply.get(2)),
				asLong(reply.get(3)) == 1, (int) asLong(reply.get(4)), (int) asLong(reply.get(5)), readyByTopic);
	}

	/**
	 * The migrator's sweep over the buckets it owns: renews their locks and reads the
	 * head of each index. On a standalone Redis it is one script for all buckets; in a
	 * cluster, where a script must stay in one slot, one per bucket, pipelined.
	 */
	public List<BucketPeek> peek(int[] buckets, String owner, long lockTtlMillis) {
		List<CompletionStage<List<Object>>> replies = new ArrayList<>();
		List<int[]> groups = new ArrayList<>();
		if (this.scripts.connections().isCluster()) {
			for (int bucket : buckets) {
				groups.add(new int[] { bucket });
			}
		}
		else if (buckets.length > 0) {
			groups.add(buckets);
		}
		for (int[] group : groups) {
			String[] keys = new String[group.length * 4];
			for (int i = 0; i < group.length; i++) {
				String[] bucketKeys = this.keys.bucketKeys(group[i]);
				keys[i * 4] = bucketKeys[1];
				keys[i * 4 + 1] = bucketKeys[2];
				keys[i * 4 + 2] = bucketKeys[4];
				keys[i * 4 + 3] = bucketKeys[6];
			}
			replies.add(this.scripts.runAsync(Scripts.PEEK, keys, owner, Long.toString(lockTtlMillis)));
		}
		List<BucketPeek> peeks = new ArrayList<>(buckets.length);
		for (int g = 0; g < groups.size(); g++) {
			List<Object> reply = this.scripts.await(replies.get(g), "sweep buckets");
			long now = asLong(reply.get(0));
			int[] group = groups.get(g);
			for (int i = 0; i < group.length; i++) {
				int base = 1 + i * 4;
				peeks.add(new BucketPeek(group[i], now, asLong(reply.get(base)) == 1, asLong(reply.get(base + 1)),
						asLong(reply.get(base + 2)), asLong(reply.get(base + 3))));
			}
		}
		return peeks;
	}

	/** Announces this instance; returns how many instances are alive. */
	public long heartbeat(String instanceId, long ttlMillis, boolean leaving) {
		Long live = this.scripts.run(Scripts.HEARTBEAT, new String[] { this.keys.instancesKey() }, instanceId,
				Long.toString(ttlMillis), leaving ? "leave" : "beat");
		return live;
	}

	/**
	 * Tells consumers of a topic that a bucket has READY jobs; a hint, so it may be lost.
	 */
	public CompletionStage<Long> signal(String topic, int bucket) {
		RedisClusterAsyncCommands<String, String> commands = commands();
		String key = this.keys.signalKey(topic);
		CompletionStage<Long> pushed = commands.rpush(key, Integer.toString(bucket));
		// A topic without consumers must not grow its signal list forever.
		commands.ltrim(key, -4L * this.keys.buckets(), -1);
		return pushed;
	}

	public CompletionStage<Long> publishWake(int bucket, long dueAt) {
		return commands().publish(this.keys.wakeChannel(), bucket + ":" + dueAt);
	}

	// ---- consumer side
	// -------------------------------------------------------------------

	/**
	 * Whether any bucket has a ready list for the topic: one EXISTS over all of them
	 * (Lettuce splits it per slot in a cluster), so an idle consumer's safety check costs
	 * one command, not one per bucket.
	 */
	public boolean anyReady(String topic) {
		String[] lists = new String[this.keys.buckets()];
		for (int b = 0; b < lists.length; b++) {
			lists[b] = this.keys.readyKey(b, topic);
		}
		Long existing = this.scripts.await(commands().exists(lists), "look for ready jobs of " + topic);
		return existing != null && existing > 0;
	}

	public CompletionStage<ClaimResult> claim(int bucket, String topic, int max, long leaseMillis, String token,
			int maxAttempts) {
		CompletionStage<List<Object>> reply = this.scripts.runAsync(Scripts.CLAIM, this.keys.bucketKeys(bucket),
				args(bucket, topic, max, leaseMillis, token, maxAttempts));
		return reply.thenApply((values) -> {
			List<ClaimedJob> jobs = new ArrayList<>();
			for (int i = 2; i + 4 < values.size(); i += 5) {
				String jobKey = String.valueOf(values.get(i));
				jobs.add(new ClaimedJob(bucket, jobKey, topic, jobKey.substring(topic.length() + 1),
						(int) asLong(values.get(i + 1)), asLong(values.get(i + 2)), asLong(values.get(i + 3)),
						String.valueOf(values.get(i + 4)), token));
			}
			return new ClaimResult(asLong(values.get(0)), asLong(values.get(1)), jobs);
		});
	}

	/**
	 * Completes jobs of one bucket; returns, per job, whether the claim was still ours.
	 */
	public CompletionStage<List<Boolean>> completeAll(int bucket, List<ClaimedJob> jobs) {
		String[] args = new String[1 + jobs.size() * 2];
		args[0] = this.keys.tag(bucket);
		int i = 1;
		for (ClaimedJob job : jobs) {
			args[i++] = job.jobKey();
			args[i++] = job.token();
		}
		CompletionStage<List<Object>> reply = this.scripts.runAsync(Scripts.COMPLETE, this.keys.bucketKeys(bucket),
				args);
		return reply.thenApply((values) -> values.stream().map((v) -> asLong(v) == 1).toList());
	}

	/**
	 * Puts a failed job back to DELAYED; returns its new due time, or empty if the claim
	 * was lost.
	 */
	public CompletionStage<Optional<ScheduleOutcome>> retry(ClaimedJob job, long backoffMillis, String error) {
		CompletionStage<List<Object>> reply = this.scripts.runAsync(Scripts.RETRY, this.keys.bucketKeys(job.bucket()),
				args(job.bucket(), job.jobKey(), job.token(), backoffMillis, error));
		return reply.thenApply((values) -> (asLong(values.get(0)) == 1)
				? Optional.of(new ScheduleOutcome("retry", String.valueOf(values.get(1)), asLong(values.get(2)) == 1))
				: Optional.empty());
	}

	/** Moves a job to DEAD; returns the time it died, or 0 if the claim was lost. */
	public CompletionStage<Long> bury(ClaimedJob job, String reason) {
		return this.scripts.runAsync(Scripts.BURY, this.keys.bucketKeys(job.bucket()),
				args(job.bucket(), job.jobKey(), job.token(), reason));
	}

	/**
	 * Renews the leases of jobs of one bucket; returns, per job, whether the claim is
	 * still ours.
	 */
	public CompletionStage<List<Boolean>> extend(int bucket, long leaseMillis, List<ClaimedJob> jobs) {
		String[] args = new String[2 + jobs.size() * 2];
		args[0] = this.keys.tag(bucket);
		args[1] = Long.toString(leaseMillis);
		int i = 2;
		for (ClaimedJob job : jobs) {
			args[i++] = job.jobKey();
			args[i++] = job.token();
		}
		CompletionStage<List<Object>> reply = this.scripts.runAsync(Scripts.EXTEND, this.keys.bucketKeys(bucket), args);
		return reply.thenApply((values) -> values.stream().map((v) -> asLong(v) == 1).toList());
	}

	/**
	 * Hands in-flight jobs of one bucket back to READY at once; returns how many were
	 * still ours.
	 */
	public long release(int bucket, List<ClaimedJob> jobs, boolean refundAttempt) {
		String[] args = new String[1 + jobs.size() * 3];
		args[0] = this.keys.tag(bucket);
		int i = 1;
		for (ClaimedJob job : jobs) {
			args[i++] = job.jobKey();
			args[i++] = job.token();
			args[i++] = refundAttempt ? "1" : "0";
		}
		Long released = this.scripts.run(Scripts.RELEASE, this.keys.bucketKeys(bucket), args);
		return released;
	}

	// ---- admin
	// ---------------------------------------------------------------------------

	/** A read-only look at one bucket, for metrics and health. */
	public CompletionStage<BucketInspection> inspect(int bucket) {
		CompletionStage<List<Object>> reply = this.scripts.runAsync(Scripts.INSPECT, this.keys.bucketKeys(bucket),
				this.keys.tag(bucket));
		return reply.thenApply(BucketInspection::of);
	}

	public long requeueDead(int bucket, String topic, String jobKey, int max) {
		Long moved = this.scripts.run(Scripts.REQUEUE_DEAD, this.keys.bucketKeys(bucket),
				args(bucket, topic, max, jobKey));
		return moved;
	}

	public long purgeDead(int bucket, String topic, int max) {
		Long purged = this.scripts.run(Scripts.PURGE_DEAD, this.keys.bucketKeys(bucket), args(bucket, topic, max));
		return purged;
	}

	static long asLong(Object value) {
		if (value instanceof Number number) {
			return number.longValue();
		}
		return Long.parseLong(String.valueOf(value));
	}

}
