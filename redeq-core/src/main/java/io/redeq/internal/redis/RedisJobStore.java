package io.redeq.internal.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

import io.lettuce.core.ScoredValue;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.internal.redis.script.Scripts;

/**
 * The one door to job state in Redis: a method per state change, each one Lua script on
 * one bucket's keys (so each is atomic and Cluster-safe). Every key a script touches is
 * declared: the bucket's fixed keys and the ready and dead keys of each topic the script
 * may meet (see {@code prelude.lua}).
 *
 * <p>
 * One class because it is the one door, with a method per script, each "send, then let
 * the result record parse the reply", and every caller's port ({@code ClaimScripts},
 * {@code ConsumerStore}, {@code MigrationScripts} and the others) is a view of it; how a
 * bucket's scripts are sent with the topics they declare is {@link BucketScripts}', the
 * instances' heartbeats and descriptions {@link InstanceRegistry}'s, the scripts of the
 * admin and the metrics {@link AdminScripts}'.
 */
public final class RedisJobStore {

	/** Jobs one bulk cancel call takes on one bucket (see cancel-all.lua). */
	public static final int MAX_CANCEL_PER_CALL = 1000;

	/** Jobs one purge step deletes at most (see purge-waiting.lua). */
	public static final int MAX_PURGE_PER_CALL = 1000;

	private final KeySpace keys;

	private final ScriptRunner scripts;

	/** Sends the scripts of one bucket with the keys of the topics they declare. */
	private final BucketScripts bucketScripts;

	private final InstanceRegistry instances;

	private final AdminScripts admin;

	/**
	 * Whether Redis is reached through a proxy (proxy mode) that, like a cluster, may
	 * keep two buckets on two servers although the client sees one: then no script and no
	 * command names keys of two buckets, as on a cluster.
	 */
	private final boolean behindProxy;

	public RedisJobStore(KeySpace keys, ScriptRunner scripts) {
		this(keys, scripts, false);
	}

	/**
	 * A store that, when {@code behindProxy}, sends every command to the keys of one
	 * bucket only, as on a cluster, although its client is a standalone one.
	 * @param keys the key space
	 * @param scripts the script runner
	 * @param behindProxy whether a proxy may shard the buckets over several servers
	 */
	public RedisJobStore(KeySpace keys, ScriptRunner scripts, boolean behindProxy) {
		this.keys = keys;
		this.scripts = scripts;
		this.behindProxy = behindProxy;
		this.bucketScripts = new BucketScripts(keys, scripts);
		this.instances = new InstanceRegistry(keys, scripts);
		this.admin = new AdminScripts(this.bucketScripts, scripts, keys.buckets());
	}

	public KeySpace keys() {
		return this.keys;
	}

	public ScriptRunner scripts() {
		return this.scripts;
	}

	/**
	 * The instances of this prefix: their heartbeats and descriptions.
	 * @return the instance registry on this store's keys
	 */
	public InstanceRegistry instances() {
		return this.instances;
	}

	/**
	 * The scripts of the admin and of the metrics: inspect, list, promote, requeue,
	 * purge.
	 * @return the admin scripts on this store's buckets
	 */
	public AdminScripts admin() {
		return this.admin;
	}

	RedisClusterAsyncCommands<String, String> commands() {
		return this.scripts.connections().commands();
	}

	// ---- producer side ----------------------------------------------------------------

	/**
	 * Writes jobs of one bucket in one atomic script; the outcomes come in request order,
	 * the one that became the bucket's earliest job marked.
	 */
	public CompletionStage<List<ScheduleOutcome>> schedule(int bucket, long capacityPerBucket,
			List<ScheduleRequest> requests) {
		Set<String> topics = new LinkedHashSet<>();
		String[] args = new String[3 + requests.size() * 8];
		args[0] = Long.toString(capacityPerBucket);
		args[1] = Integer.toString(requests.size());
		args[2] = Integer.toString(this.keys.buckets());
		int i = 3;
		for (ScheduleRequest request : requests) {
			topics.add(KeySpace.topicOf(request.jobKey()));
			args[i++] = request.jobKey();
			args[i++] = request.payload();
			args[i++] = request.absolute() ? "at" : "in";
			args[i++] = Long.toString(request.millis());
			args[i++] = request.policyCode();
			args[i++] = request.settings().encode();
			args[i++] = (request.traceContext() != null) ? request.traceContext() : "";
			args[i++] = (request.attemptsUsed() > 0) ? Integer.toString(request.attemptsUsed()) : "";
		}
		CompletionStage<List<Object>> reply = this.bucketScripts.runOn(Scripts.SCHEDULE, bucket, topics, args);
		return reply.thenApply((values) -> ScheduleOutcome.fromScheduleReply(values, requests));
	}

	/**
	 * Cancels a waiting job. {@code requestId} is unique to this call: a second run of
	 * the same command (Lettuce's, after a reconnect) answers as the first did.
	 */
	/**
	 * This layout's bucket count, as the scripts that must not answer for another layout
	 * compare it with the count a change marked in the bucket.
	 */
	private String bucketCount() {
		return Integer.toString(this.keys.buckets());
	}

	public CompletableFuture<Boolean> cancel(int bucket, String jobKey, String requestId) {
		CompletableFuture<Long> reply = this.bucketScripts.runRemembered(Scripts.CANCEL, bucket,
				KeySpace.topicOf(jobKey), new String[] { jobKey, requestId }, new String[] { bucketCount() });
		return reply.thenApply((cancelled) -> cancelled == 1);
	}

	/**
	 * Cancels the waiting jobs (DELAYED or READY) among {@code jobKeys}, all of one topic
	 * and of this bucket, at most {@link #MAX_CANCEL_PER_CALL}; completes with the
	 * jobKeys it cancelled. {@code requestId} is unique to this call: a second run of the
	 * same command answers as the first did.
	 */
	public CompletableFuture<List<String>> cancelAll(int bucket, String topic, List<String> jobKeys, String requestId) {
		if (jobKeys.size() > MAX_CANCEL_PER_CALL) {
			throw new IllegalArgumentException("A bulk cancel call takes at most " + MAX_CANCEL_PER_CALL
					+ " jobs per bucket, but got " + jobKeys.size());
		}
		String[] args = new String[jobKeys.size() + 3];
		args[0] = topic;
		args[1] = Long.toString(this.bucketScripts.requestMemoryMillis());
		args[2] = bucketCount();
		for (int i = 0; i < jobKeys.size(); i++) {
			args[i + 3] = jobKeys.get(i);
		}
		String[] topicKeys = this.keys.jobScriptKeys(bucket, List.of(topic));
		String[] keys = Arrays.copyOf(topicKeys, topicKeys.length + 1);
		keys[topicKeys.length] = this.keys.answerKey(bucket, requestId);
		this.bucketScripts.remember(bucket, List.of(topic));
		CompletableFuture<List<Object>> reply = this.scripts.runAsync(Scripts.CANCEL_ALL, keys, args);
		return reply.thenApply((values) -> values.stream().map(String::valueOf).toList());
	}

	/**
	 * Moves a waiting job's due time; completes with the new due time, or empty if it
	 * could not.
	 */
	public CompletableFuture<Optional<ScheduleOutcome>> reschedule(int bucket, String jobKey, boolean absolute,
			long millis) {
		CompletableFuture<List<Object>> reply = this.bucketScripts.runOn(Scripts.RESCHEDULE, bucket,
				KeySpace.topicOf(jobKey), jobKey, absolute ? "at" : "in", Long.toString(millis), bucketCount());
		return reply.thenApply((values) -> ScheduleOutcome.fromMoveReply("rescheduled", values));
	}

	/**
	 * Whether a bucket holds a job, in any state: one read, no script, so it answers on a
	 * bucket that a change of the bucket count froze too.
	 * @param bucket the bucket
	 * @param jobKey the job's key
	 * @return whether its record is there
	 */
	public CompletableFuture<Boolean> holds(int bucket, String jobKey) {
		return commands().hexists(this.keys.payloadKey(bucket), jobKey).toCompletableFuture();
	}

	public CompletableFuture<Optional<StoredJob>> find(int bucket, String jobKey) {
		CompletableFuture<List<Object>> reply = this.bucketScripts.runOn(Scripts.FIND, bucket, KeySpace.topicOf(jobKey),
				jobKey, bucketCount());
		return reply.thenApply((values) -> StoredJob.fromReply(jobKey, values));
	}

	// ---- migrator ---------------------------------------------------------------------

	public boolean tryLock(int bucket, String owner, long ttlMillis) {
		String reply = this.scripts
			.await(commands().set(this.keys.lockKey(bucket), owner, SetArgs.Builder.nx().px(ttlMillis)), "lock bucket");
		return "OK".equals(reply);
	}

	public boolean unlock(int bucket, String owner) {
		Long released = this.scripts.await(this.bucketScripts.runOn(Scripts.UNLOCK, bucket, List.of(), owner),
				"unlock bucket");
		return released == 1;
	}

	/**
	 * Moves due jobs of one bucket. A sweep also renews the caller's lock, reclaims
	 * expired leases and drops dead jobs past retention; a migrate woken by a due job
	 * does only the moving, so the common path stays a few commands long.
	 */
	public MigrateResult migrate(int bucket, int batchSize, boolean sweep, String lockOwner, long lockTtlMillis,
			long deadRetentionMillis) {
		return MigrateResult.fromReply(
				this.bucketScripts.runMigrateWithAllTopics(bucket, BucketScripts.strings(batchSize,
						sweep ? lockOwner : "", lockTtlMillis, sweep ? deadRetentionMillis : 0, sweep ? 1 : 0, 0, 0)),
				bucket, List.of(), 0);
	}

	/**
	 * Migrates the due jobs of several buckets at their due time (no lock renewal, no
	 * lease or retention pass), every script sent before the first reply is awaited: a
	 * round costs one round trip, not one per bucket. A bucket whose script met a topic
	 * not declared yet is sent again on its own with it. Each bucket's script gets its
	 * {@code offers}: it hands due jobs of their topics straight to those consumers
	 * ({@link MigrateResult#handedOver()}). Every bucket's reply is awaited; the first
	 * failure is thrown after the last, and the offers of a bucket that failed are left
	 * for the caller to settle.
	 * @param offersByBucket per bucket, in the order of {@code buckets}, its offers
	 */
	public void migrateDue(int[] buckets, int batchSize, List<List<SlotOffer>> offersByBucket,
			BiConsumer<Integer, MigrateResult> each) {
		migrateDue(buckets, batchSize, offersByBucket,
				offersByBucket.stream().map((offers) -> List.<ClaimedJob>of()).toList(), each);
	}

	/**
	 * Migrates as {@link #migrateDue(int[], int, List, BiConsumer)} does, and each
	 * bucket's script that carries offers also completes the finished jobs given for it
	 * ({@link MigrateResult#completed()}), as {@link #completeAll} would: the consumers
	 * that get their jobs by hand-off pay no script of their own to complete them.
	 * @param completionsByBucket per bucket, finished jobs of that bucket (only where it
	 * has offers; at most 500)
	 */
	public void migrateDue(int[] buckets, int batchSize, List<List<SlotOffer>> offersByBucket,
			List<List<ClaimedJob>> completionsByBucket, BiConsumer<Integer, MigrateResult> each) {
		String[] plain = BucketScripts.strings(batchSize, "", 0, 0, 0, 0, 0);
		List<CompletableFuture<List<Object>>> replies = new ArrayList<>(buckets.length);
		List<String[]> args = new ArrayList<>(buckets.length);
		for (int i = 0; i < buckets.length; i++) {
			List<SlotOffer> offers = offersByBucket.get(i);
			this.bucketScripts.remember(buckets[i], offers.stream().map(SlotOffer::topic).toList());
			args.add(withOffers(plain, offers, completionsByBucket.get(i)));
			replies.add(
					this.bucketScripts.runMigrate(buckets[i], this.bucketScripts.knownTopics(buckets[i]), args.get(i)));
		}
		// Each bucket's result is handed on as soon as its reply is in, so its consumers
		// are signalled without waiting for the replies behind it. A bucket that fails
		// does not end the round: the scripts behind it are on their way and may run,
		// handing jobs to consumers, so their replies are awaited too (they come, or time
		// out, with the failed one's).
		RuntimeException failure = null;
		for (int i = 0; i < buckets.length; i++) {
			try {
				List<Object> reply = this.scripts.await(replies.get(i), Scripts.MIGRATE.toString());
				if (ScriptReply.asksForTopics(reply)) {
					reply = this.bucketScripts.runMigrateWithAllTopics(buckets[i], args.get(i));
				}
				each.accept(buckets[i], MigrateResult.fromReply(reply, buckets[i], offersByBucket.get(i),
						completionsByBucket.get(i).size()));
			}
			catch (RuntimeException ex) {
				failure = (failure != null) ? failure : ex;
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * migrate.lua's arguments with the offers in place of "none", and the completions.
	 */
	private String[] withOffers(String[] plain, List<SlotOffer> offers, List<ClaimedJob> completions) {
		if (offers.isEmpty()) {
			if (!completions.isEmpty()) {
				throw new IllegalArgumentException("Completions ride only on a migrate call with offers, but "
						+ completions.size() + " came without one");
			}
			return plain;
		}
		List<String> args = new ArrayList<>(Arrays.asList(plain).subList(0, plain.length - 2));
		args.add(Long.toString(this.bucketScripts.requestMemoryMillis()));
		args.add(Integer.toString(offers.size()));
		for (SlotOffer offer : offers) {
			args.add(offer.topic());
			args.add(Integer.toString(offer.slots()));
			args.add(Long.toString(offer.leaseMillis()));
			args.add(offer.token());
			args.add(Integer.toString(offer.maxAttempts()));
			args.add(Long.toString(offer.leadMillis()));
		}
		if (!completions.isEmpty()) {
			args.add(Integer.toString(completions.size()));
			for (ClaimedJob job : completions) {
				args.add(job.jobKey());
				args.add(job.token());
			}
		}
		return args.toArray(String[]::new);
	}

	/**
	 * The migrator's sweep over the buckets it owns: renews their locks and reads the
	 * head of each index. On a standalone Redis it is one script for all buckets; in a
	 * cluster, where a script must stay in one slot, and behind a proxy, which routes a
	 * script by its first key, one per bucket, pipelined.
	 */
	public List<BucketPeek> peek(int[] buckets, String owner, long lockTtlMillis) {
		List<CompletionStage<List<Object>>> replies = new ArrayList<>();
		List<int[]> groups = new ArrayList<>();
		if (this.behindProxy || this.scripts.connections().isCluster()) {
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
				keys[i * 4] = this.keys.dueKey(group[i]);
				keys[i * 4 + 1] = this.keys.leaseKey(group[i]);
				keys[i * 4 + 2] = this.keys.diedKey(group[i]);
				keys[i * 4 + 3] = this.keys.lockKey(group[i]);
			}
			replies.add(this.scripts.runAsync(Scripts.PEEK, keys, owner, Long.toString(lockTtlMillis)));
		}
		List<BucketPeek> peeks = new ArrayList<>(buckets.length);
		for (int g = 0; g < groups.size(); g++) {
			peeks.addAll(BucketPeek.fromReply(groups.get(g), this.scripts.await(replies.get(g), "sweep buckets")));
		}
		return peeks;
	}

	/**
	 * Tells consumers of a topic that a bucket has READY jobs; a hint, so it may be lost.
	 */
	public CompletionStage<Long> signal(String topic, int bucket) {
		RedisClusterAsyncCommands<String, String> commands = commands();
		String key = this.keys.signalKey(topic);
		long cap = 4L * this.keys.buckets();
		CompletionStage<Long> pushed = commands.rpush(key, Integer.toString(bucket));
		// A topic without consumers must not grow its signal list forever; consumers keep
		// it short, so the trim is sent only when the push found it long.
		pushed.thenAccept((length) -> {
			if (length != null && length > cap) {
				commands.ltrim(key, -cap, -1);
			}
		});
		return pushed;
	}

	public CompletionStage<Long> publishWake(int bucket, long dueAt) {
		return commands().publish(this.keys.wakeChannel(), bucket + ":" + dueAt);
	}

	// ---- consumer side ----------------------------------------------------------------

	/**
	 * Whether any bucket has READY jobs of the topic: one EXISTS over all its ready sets
	 * (Lettuce splits it per slot in a cluster), so an idle consumer's safety check costs
	 * one command, not one per bucket. Behind a proxy, which may not split a multi-key
	 * command, one EXISTS per bucket, pipelined.
	 */
	public boolean anyReady(String topic) {
		String[] sets = new String[this.keys.buckets()];
		for (int b = 0; b < sets.length; b++) {
			sets[b] = this.keys.readyKey(b, topic);
		}
		String description = "look for ready jobs of " + topic;
		if (this.behindProxy) {
			List<CompletionStage<Long>> each = new ArrayList<>(sets.length);
			for (String set : sets) {
				each.add(commands().exists(set));
			}
			long existing = 0;
			for (CompletionStage<Long> reply : each) {
				Long count = this.scripts.await(reply, description);
				existing += (count != null) ? count : 0;
			}
			return existing > 0;
		}
		Long existing = this.scripts.await(commands().exists(sets), description);
		return existing != null && existing > 0;
	}

	/**
	 * Claims up to {@code max} READY jobs of a topic in a bucket under a lease.
	 * {@code token} must be new for each claim and unique across instances and restarts:
	 * a claim run again under a token that already took jobs (Lettuce sends a command
	 * again after reconnecting when its reply was lost) takes no more and delivers the
	 * jobs still held under it, with their attempts as the first run set them.
	 */
	public CompletionStage<ClaimResult> claim(int bucket, String topic, int max, long leaseMillis, String token,
			int maxAttempts) {
		return claim(bucket, topic, max, leaseMillis, token, maxAttempts, Double.POSITIVE_INFINITY);
	}

	/**
	 * As {@link #claim(int, String, int, long, String, int)}, taking only jobs whose
	 * ready score (see {@link ClaimedJob#readyScore()}) is at most {@code maxScore}
	 * ({@link Double#POSITIVE_INFINITY}: any).
	 */
	public CompletionStage<ClaimResult> claim(int bucket, String topic, int max, long leaseMillis, String token,
			int maxAttempts, double maxScore) {
		String[] bound = (maxScore == Double.POSITIVE_INFINITY) ? new String[0]
				: new String[] { Double.toString(maxScore) };
		CompletionStage<List<Object>> reply = this.bucketScripts.runRemembered(Scripts.CLAIM, bucket, topic,
				BucketScripts.strings(max, leaseMillis, token, maxAttempts), bound);
		return reply.thenApply((values) -> ClaimResult.fromReply(values, bucket, topic, token));
	}

	/**
	 * Reads the ready-set scores of a topic's lowest {@code count} READY jobs in each of
	 * {@code buckets}, one command per bucket, pipelined: what a consumer compares to
	 * choose the buckets it claims from. A read, not a claim: the jobs may be gone by the
	 * time it claims.
	 * @return per bucket, in the order given, its scores lowest first
	 */
	public List<CompletionStage<double[]>> readyScores(String topic, List<Integer> buckets, int count) {
		List<CompletionStage<double[]>> replies = new ArrayList<>(buckets.size());
		for (int bucket : buckets) {
			replies.add(commands().zrangeWithScores(this.keys.readyKey(bucket, topic), 0, count - 1)
				.thenApply((entries) -> entries.stream().mapToDouble(ScoredValue::getScore).toArray()));
		}
		return replies;
	}

	/**
	 * Asks the topic's rate limiter for up to {@code wanted} job starts under the grant
	 * id {@code id} (new for each grant); returns the permits granted and, when fewer
	 * than wanted, the ms until the oldest grant leaves the window.
	 */
	public long[] grantStarts(String topic, int permits, long windowMillis, int wanted, String id) {
		List<Object> reply = this.scripts.await(
				this.scripts.runAsync(Scripts.RATE_GRANT, this.keys.rateLimitKeys(topic),
						BucketScripts.strings(permits, windowMillis, wanted, id)),
				"ask the rate limiter of topic " + topic);
		return new long[] { ScriptReply.number(reply.get(0)), ScriptReply.number(reply.get(1)) };
	}

	/** Gives back permits of a grant that a claim did not use. */
	public CompletionStage<Long> refundStarts(String topic, String id, int granted, int unused) {
		return this.scripts.runAsync(Scripts.RATE_REFUND, this.keys.rateLimitKeys(topic),
				BucketScripts.strings(id, granted, unused));
	}

	/**
	 * Completes jobs of one bucket; returns, per job, whether the claim was still ours.
	 */
	public CompletionStage<List<Boolean>> completeAll(int bucket, List<ClaimedJob> jobs) {
		return completeAll(bucket, jobs, null).thenApply(CompletionReply::completed);
	}

	/**
	 * Completes jobs of one bucket and, given {@code claim}, claims READY jobs of its
	 * topic there for the same consumer in the same script (as {@link #claim} would right
	 * after; a second run under the token answers with what it holds).
	 * @param bucket the bucket of every job
	 * @param jobs the finished jobs
	 * @param claim the consumer's free slots to fill, or {@code null} to only complete
	 * @return per job whether it completed, and what was claimed
	 */
	public CompletionStage<CompletionReply> completeAll(int bucket, List<ClaimedJob> jobs, @Nullable SlotOffer claim) {
		Set<String> topics = topicsOf(jobs, claim);
		List<String> args = new ArrayList<>(jobs.size() * 2 + 8);
		args.add(String.join(",", topics));
		if (claim == null) {
			args.add("0");
		}
		else {
			boolean bounded = claim.maxScore() != Double.POSITIVE_INFINITY;
			args.addAll(List.of(bounded ? "7" : "6", claim.topic(), Integer.toString(claim.slots()),
					Long.toString(claim.leaseMillis()), claim.token(), Integer.toString(claim.maxAttempts()),
					Long.toString(this.bucketScripts.requestMemoryMillis())));
			if (bounded) {
				args.add(Double.toString(claim.maxScore()));
			}
		}
		for (ClaimedJob job : jobs) {
			args.add(job.jobKey());
			args.add(job.token());
		}
		this.bucketScripts.remember(bucket, topics);
		String[] keys = this.keys.jobScriptKeys(bucket, topics);
		if (claim != null) {
			keys = Arrays.copyOf(keys, keys.length + 1);
			keys[keys.length - 1] = this.keys.requestsKey(bucket);
		}
		CompletionStage<List<Object>> reply = this.scripts.runAsync(Scripts.COMPLETE, keys,
				args.toArray(String[]::new));
		return reply.thenApply((values) -> new CompletionReply(ScriptReply.perJobFlags(values.subList(0, jobs.size())),
				(claim != null) ? ClaimResult.fromReply(values.subList(jobs.size(), values.size()), bucket,
						claim.topic(), claim.token()) : null));
	}

	private static Set<String> topicsOf(List<ClaimedJob> jobs, @Nullable SlotOffer claim) {
		Set<String> topics = new LinkedHashSet<>(topicsOf(jobs));
		if (claim != null) {
			topics.add(claim.topic());
		}
		return topics;
	}

	/**
	 * Puts a failed job back to DELAYED; returns its new due time, or empty if the claim
	 * was lost.
	 */
	public CompletionStage<Optional<ScheduleOutcome>> retry(ClaimedJob job, long backoffMillis, String error) {
		CompletionStage<List<Object>> reply = this.bucketScripts.runOn(Scripts.RETRY, job.bucket(), job.topic(),
				job.jobKey(), job.token(), Long.toString(backoffMillis), error);
		return reply.thenApply((values) -> ScheduleOutcome.fromMoveReply("retry", values));
	}

	/** Moves a job to DEAD; returns the time it died, or 0 if the claim was lost. */
	public CompletionStage<Long> bury(ClaimedJob job, String reason) {
		return this.bucketScripts.runOn(Scripts.BURY, job.bucket(), job.topic(), job.jobKey(), job.token(), reason);
	}

	/**
	 * Renews the leases of jobs of one bucket; returns, per job, whether the claim is
	 * still ours.
	 */
	public CompletionStage<List<Boolean>> extend(int bucket, long leaseMillis, List<ClaimedJob> jobs) {
		String[] args = new String[1 + jobs.size() * 2];
		args[0] = Long.toString(leaseMillis);
		int i = 1;
		for (ClaimedJob job : jobs) {
			args[i++] = job.jobKey();
			args[i++] = job.token();
		}
		CompletionStage<List<Object>> reply = this.bucketScripts.runOn(Scripts.EXTEND, bucket, topicsOf(jobs), args);
		return reply.thenApply(ScriptReply::perJobFlags);
	}

	/**
	 * Hands in-flight jobs of one bucket back to READY at once; returns how many were
	 * still ours.
	 */
	public long release(int bucket, List<ClaimedJob> jobs, boolean refundAttempt) {
		String[] args = new String[jobs.size() * 3];
		int i = 0;
		for (ClaimedJob job : jobs) {
			args[i++] = job.jobKey();
			args[i++] = job.token();
			args[i++] = refundAttempt ? "1" : "0";
		}
		Long released = this.scripts.await(this.bucketScripts.runOn(Scripts.RELEASE, bucket, topicsOf(jobs), args),
				"release " + jobs.size() + " jobs");
		return released;
	}

	/**
	 * Hands back, with their attempts, the jobs a claim took whose reply never arrived;
	 * returns how many. The token is burnt: a claim or migrate under it that reaches
	 * Redis after this takes nothing.
	 */
	public long releaseClaim(int bucket, String topic, String token) {
		Long released = this.scripts.await(
				this.bucketScripts.runRemembered(Scripts.RELEASE_CLAIM, bucket, topic, token),
				"hand back the jobs of a lost claim on topic " + topic);
		return released;
	}

	// ---- helpers ----------------------------------------------------------------------

	private static Set<String> topicsOf(List<ClaimedJob> jobs) {
		Set<String> topics = new LinkedHashSet<>();
		for (ClaimedJob job : jobs) {
			topics.add(job.topic());
		}
		return topics;
	}

}
