package io.redeq.internal.redis;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.KeyValue;
import io.lettuce.core.MapScanCursor;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.internal.redis.script.Scripts;

/**
 * Moves every job from one bucket count to another, beside running instances. A job
 * crosses hash slots, so it cannot move in one script: each is copied into its new bucket
 * first and removed from its old one second (only if it is still the job that was copied,
 * in the same state), both idempotent, so an interrupted change loses nothing and runs
 * again. Recurring definitions move the same way, with their plan and trigger.
 * <p>
 * Nothing relies on instances noticing the change in time: before the first move every
 * bucket of the old layout is frozen ({@code ~frozen} in its count hash), and the scripts
 * that would start or change its waiting jobs (claim, migrate, schedule, cancel, ...)
 * refuse it with a {@link LayoutChangedException}, while those that end work in flight
 * (complete, retry, bury, extend, release) go on. So a waiting job cannot change between
 * its copy and its removal. Leased jobs stay where they are until their consumer ends
 * them; what a retry or a burial leaves waiting in the old bucket moves at the next pass,
 * and a job whose lease expired (its instance died) is made READY there first, which
 * fences its old holder. Passes repeat until every old bucket holds only its own jobs,
 * within {@link #MOVE_BOUND}.
 */
public final class Resharder {

	private static final Logger logger = LoggerFactory.getLogger(Resharder.class);

	/** How long the passes may wait for leased jobs of old buckets to end. */
	static final Duration MOVE_BOUND = Duration.ofMinutes(10);

	/** The pause between passes while leased jobs of old buckets still run. */
	private static final Duration PASS_PAUSE = Duration.ofMillis(100);

	/** How often the passes say how many jobs still run in old buckets. */
	private static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);

	/** Jobs read, copied and removed together, as one pipelined page. */
	private static final int PAGE = 500;

	private final KeySpace from;

	private final KeySpace to;

	private final ScriptRunner scripts;

	public Resharder(KeySpace from, KeySpace to, ScriptRunner scripts) {
		this.from = from;
		this.to = to;
		this.scripts = scripts;
	}

	/**
	 * Moves every job of a prefix from the bucket count recorded in Redis to
	 * {@code buckets}, then records the new count; what {@code Redeq.Builder.reshard()}
	 * runs.
	 * @return the number of jobs moved to another bucket
	 */
	public static long reshard(AbstractRedisClient client, String prefix, int buckets, Duration commandTimeout) {
		try (RedisConnections connections = new RedisConnections(client)) {
			return change(new ScriptRunner(connections, commandTimeout), prefix, buckets);
		}
	}

	/**
	 * Moves every job and recurring definition of a prefix from the bucket count recorded
	 * in Redis to {@code buckets}, then records the new count, beside running instances.
	 * Before the first move it records, in the prefix's meta hash, the count it moves to
	 * and freezes the old layout's buckets; only a change to the same count may run until
	 * it has finished (which finishes the interrupted one: every step is idempotent). In
	 * order: record the change, freeze and mark the old buckets and mark the new ones,
	 * move jobs in passes, move recurring definitions, record the new count, thaw the
	 * buckets both layouts use, drop the old buckets the new layout does not use.
	 * @param scripts where to run the moves
	 * @param prefix the prefix
	 * @param buckets the new bucket count, a valid one
	 * @return the number of jobs moved to another bucket
	 * @throws IllegalStateException if an unfinished change moves to another count, or
	 * jobs leased in old buckets still run after {@link #MOVE_BOUND} (calling it again
	 * with the same count finishes the change)
	 */
	public static long change(ScriptRunner scripts, String prefix, int buckets) {
		KeySpace target = new KeySpace(prefix, buckets);
		JobQueries queries = new JobQueries(target, scripts);
		int recorded = queries.recordOrReadBucketCount(buckets);
		int changingTo = queries.readBucketLayout()[1];
		if (changingTo != 0 && changingTo != buckets) {
			throw new IllegalStateException("Cannot change the bucket count of prefix '" + prefix + "' to " + buckets
					+ ": a change from " + recorded + " to " + changingTo + " buckets has not finished; change it to "
					+ changingTo + " first (that finishes the interrupted change), then to " + buckets);
		}
		Resharder resharder = new Resharder(new KeySpace(prefix, recorded), target, scripts);
		if (recorded == buckets) {
			// Nothing to move; a change that stopped after recording the count still
			// thaws the buckets both layouts use.
			resharder.thawReused();
			if (changingTo != 0) {
				queries.recordChangingTo(0);
			}
			return 0;
		}
		queries.recordChangeBegun(buckets);
		new FormatUpgrade(resharder.from, scripts).run();
		long moved = resharder.moveAll();
		queries.recordBucketCount(buckets);
		queries.recordChangingTo(0);
		resharder.thawReused();
		for (int b = 0; b < resharder.from.buckets(); b++) {
			resharder.dropIfUnused(b);
		}
		logger.info("Changed the bucket count of prefix '{}' from {} to {}: {} jobs moved", prefix, recorded, buckets,
				moved);
		return moved;
	}

	/**
	 * Freezes and marks the old layout's buckets and marks the new one's, then moves
	 * every job that belongs to another bucket now, in passes, and the recurring
	 * definitions; returns how many jobs moved. Does not record the new count.
	 */
	long moveAll() {
		freezeAndMark();
		long moved = 0;
		long started = System.nanoTime();
		long lastReport = started;
		while (true) {
			long[] pass = movePass();
			moved += pass[0];
			long left = pass[1];
			if (left == 0) {
				break;
			}
			long now = System.nanoTime();
			if (now - started > MOVE_BOUND.toNanos()) {
				throw new IllegalStateException("Changing the bucket count of prefix '" + this.from.prefix() + "' from "
						+ this.from.buckets() + " to " + this.to.buckets() + ": " + left
						+ " jobs still run in buckets of the old layout after " + MOVE_BOUND + " (" + moved
						+ " moved); calling changeBucketCount(" + this.to.buckets() + ") again finishes the change");
			}
			if (now - lastReport > PROGRESS_EVERY.toNanos()) {
				lastReport = now;
				logger.info(
						"Changing the bucket count of prefix '{}' from {} to {}: {} jobs moved, {} still run in "
								+ "buckets of the old layout",
						this.from.prefix(), this.from.buckets(), this.to.buckets(), moved, left);
			}
			pause();
		}
		for (int b = 0; b < this.from.buckets(); b++) {
			moveRecurring(b);
		}
		return moved;
	}

	private static void pause() {
		try {
			Thread.sleep(PASS_PAUSE.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while changing the bucket count; calling "
					+ "changeBucketCount again with the same count finishes the change", ex);
		}
	}

	/**
	 * Records the new layout's bucket count in every bucket of both layouts, and freezes
	 * the old layout's buckets, so that an instance still on the old layout gets a
	 * {@link LayoutChangedException} instead of changing jobs that are moving.
	 */
	void freezeAndMark() {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		String count = Integer.toString(this.to.buckets());
		List<CompletionStage<?>> writes = new ArrayList<>();
		for (int b = 0; b < this.from.buckets(); b++) {
			writes.add(commands.hset(this.from.countKey(b), Map.of("~buckets", count, FROZEN, "1")));
		}
		for (int b = 0; b < this.to.buckets(); b++) {
			writes.add(commands.hset(this.to.countKey(b), "~buckets", count));
		}
		awaitAll(writes, "freeze the old layout");
	}

	/** Thaws the buckets of the new layout (the tags both layouts use were frozen). */
	void thawReused() {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		List<CompletionStage<?>> writes = new ArrayList<>();
		for (int b = 0; b < this.to.buckets(); b++) {
			writes.add(commands.hdel(this.to.countKey(b), FROZEN));
		}
		awaitAll(writes, "thaw the new layout");
	}

	private void awaitAll(List<? extends CompletionStage<?>> replies, String operation) {
		for (CompletionStage<?> reply : replies) {
			this.scripts.await(reply, operation);
		}
	}

	/**
	 * One pass over every old bucket.
	 * @return jobs moved, and jobs still to move (leased, or made READY after their lease
	 * expired)
	 */
	long[] movePass() {
		long[] total = new long[2];
		for (int b = 0; b < this.from.buckets(); b++) {
			long[] bucket = moveBucket(b);
			total[0] += bucket[0];
			total[1] += bucket[1];
		}
		return total;
	}

	private boolean isReused(int bucket) {
		String tag = this.from.tag(bucket);
		for (int b = 0; b < this.to.buckets(); b++) {
			if (this.to.tag(b).equals(tag)) {
				return true;
			}
		}
		return false;
	}

	private long[] moveBucket(int bucket) {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		long[] result = new long[2];
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			MapScanCursor<String, String> page = this.scripts.await(
					commands.hscan(this.from.payloadKey(bucket), cursor, ScanArgs.Builder.limit(PAGE)), "reshard scan");
			List<String> leaving = new ArrayList<>();
			for (String jobKey : page.getMap().keySet()) {
				if (!KeySpace.isAttemptField(jobKey)
						&& !this.to.tag(this.to.bucketOf(jobKey)).equals(this.from.tag(bucket))) {
					leaving.add(jobKey);
				}
			}
			if (!leaving.isEmpty()) {
				long[] moved = movePage(bucket, leaving);
				result[0] += moved[0];
				result[1] += moved[1];
			}
			cursor = page;
		}
		while (!cursor.isFinished());
		return result;
	}

	/**
	 * Moves a page of an old bucket's jobs that belong elsewhere now: reads them all at
	 * once, copies the waiting ones all at once, then removes them all at once.
	 */
	private long[] movePage(int bucket, List<String> jobKeys) {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		int n = jobKeys.size();
		String[] keys = jobKeys.toArray(String[]::new);
		String[] fields = new String[2 * n];
		Map<String, List<Integer>> byTopic = new HashMap<>();
		for (int i = 0; i < n; i++) {
			fields[2 * i] = keys[i];
			fields[2 * i + 1] = KeySpace.attemptField(keys[i]);
			byTopic.computeIfAbsent(KeySpace.topicOf(keys[i]), (topic) -> new ArrayList<>()).add(i);
		}
		// One command per index for the whole page, all sent before the first is awaited.
		RedisFuture<List<String>> time = commands.time();
		RedisFuture<List<KeyValue<String, String>>> records = commands.hmget(this.from.payloadKey(bucket), fields);
		RedisFuture<List<KeyValue<String, String>>> errors = commands.hmget(this.from.errorKey(bucket), keys);
		RedisFuture<List<Double>> due = commands.zmscore(this.from.dueKey(bucket), keys);
		RedisFuture<List<Double>> leased = commands.zmscore(this.from.leaseKey(bucket), keys);
		RedisFuture<List<Double>> died = commands.zmscore(this.from.diedKey(bucket), keys);
		Map<String, RedisFuture<List<Double>>> ready = new HashMap<>();
		byTopic.forEach((topic, at) -> ready.put(topic, commands.zmscore(this.from.readyKey(bucket, topic),
				at.stream().map((i) -> keys[i]).toArray(String[]::new))));
		List<String> clock = this.scripts.await(time, "read the Redis clock");
		double now = Long.parseLong(clock.get(0)) * 1000 + Long.parseLong(clock.get(1)) / 1000;
		List<KeyValue<String, String>> recordValues = this.scripts.await(records, "reshard read");
		List<KeyValue<String, String>> errorValues = this.scripts.await(errors, "reshard read");
		Double[][] scores = new Double[n][STATES.length];
		List<List<Double>> shared = List.of(this.scripts.await(due, "reshard read"),
				this.scripts.await(leased, "reshard read"), this.scripts.await(died, "reshard read"));
		for (int i = 0; i < n; i++) {
			scores[i][0] = shared.get(0).get(i);
			scores[i][2] = shared.get(1).get(i);
			scores[i][3] = shared.get(2).get(i);
		}
		for (Map.Entry<String, List<Integer>> topic : byTopic.entrySet()) {
			List<Double> found = this.scripts.await(ready.get(topic.getKey()), "reshard read");
			for (int k = 0; k < found.size(); k++) {
				scores[topic.getValue().get(k)][1] = found.get(k);
			}
		}
		long left = 0;
		List<String[]> copies = new ArrayList<>();
		List<CompletableFuture<Long>> imports = new ArrayList<>();
		List<CompletableFuture<Long>> recoveries = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			String jobKey = keys[i];
			String topic = KeySpace.topicOf(jobKey);
			String state = null;
			Double score = null;
			for (int s = 0; s < STATES.length && state == null; s++) {
				score = scores[i][s];
				if (score != null) {
					state = STATES[s];
				}
			}
			String payload = recordValues.get(2 * i).getValueOrElse(null);
			String error = errorValues.get(i).getValueOrElse(null);
			if (payload == null || state == null) {
				continue; // finished meanwhile
			}
			String[] oldKeys = this.from.jobScriptKeys(bucket, List.of(topic));
			if (state.equals("I")) {
				left++;
				if (score <= now) {
					// Its instance died: fenced and made READY here, moved next pass.
					recoveries.add(this.scripts.runAsync(Scripts.RESHARD_RECOVER, oldKeys, topic, jobKey));
				}
				continue;
			}
			String attempt = recordValues.get(2 * i + 1).getValueOrElse("");
			int target = this.to.bucketOf(jobKey);
			// Exact, fraction included: a job's priority rides in the score
			// (lib/settings.lua).
			imports.add(this.scripts.runAsync(Scripts.RESHARD_IMPORT, this.to.jobScriptKeys(target, List.of(topic)),
					topic, jobKey, payload, attempt, (error != null) ? error : "", state,
					new BigDecimal(score).toPlainString()));
			copies.add(new String[] { topic, jobKey, payload, state });
		}
		awaitAll(recoveries, Scripts.RESHARD_RECOVER.toString());
		// Every copy is in before any removal: a removal never precedes its copy.
		awaitAll(imports, Scripts.RESHARD_IMPORT.toString());
		List<CompletableFuture<Long>> removals = new ArrayList<>(copies.size());
		for (String[] copy : copies) {
			removals.add(this.scripts.runAsync(Scripts.RESHARD_REMOVE,
					this.from.jobScriptKeys(bucket, List.of(copy[0])), copy[0], copy[1], copy[2], copy[3]));
		}
		long moved = 0;
		for (CompletableFuture<Long> removal : removals) {
			Long removed = this.scripts.await(removal, Scripts.RESHARD_REMOVE.toString());
			if (removed != null && removed == 1) {
				moved++;
			}
			else {
				left++; // changed between the read and the removal: looked at again
			}
		}
		return new long[] { moved, left };
	}

	/** The state codes of the indexes a job is looked up in, in that order. */
	private static final String[] STATES = { "D", "R", "I", "X" };

	/** The count hash field that freezes a bucket (lua/lib/frozen.lua). */
	static final String FROZEN = "~frozen";

	/**
	 * Moves the recurring definitions of an old bucket (each with its plan and trigger)
	 * whose jobKey falls in another bucket of the new layout.
	 */
	private void moveRecurring(int bucket) {
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			MapScanCursor<String, String> page = this.scripts.await(
					commands.hscan(this.from.recurringKey(bucket), cursor, ScanArgs.Builder.limit(500)),
					"reshard scan recurring");
			for (Map.Entry<String, String> field : page.getMap().entrySet()) {
				if (!field.getKey().startsWith("~")) {
					moveDefinition(bucket, field.getKey(), field.getValue());
				}
			}
			cursor = page;
		}
		while (!cursor.isFinished());
	}

	private void moveDefinition(int bucket, String jobKey, String definition) {
		int target = this.to.bucketOf(jobKey);
		if (this.to.tag(target).equals(this.from.tag(bucket))) {
			return;
		}
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		String plan = this.scripts.await(commands.hget(this.from.recurringKey(bucket), "~p:" + jobKey),
				"reshard read recurring");
		Double trigger = this.scripts.await(commands.zscore(this.from.dueKey(bucket), "~r:" + jobKey),
				"reshard read recurring");
		this.scripts.run(Scripts.RECURRING_IMPORT,
				new String[] { this.to.recurringKey(target), this.to.dueKey(target) }, jobKey, definition,
				(plan != null) ? plan : "", (trigger != null) ? new BigDecimal(trigger).toPlainString() : "");
		this.scripts.run(Scripts.RECURRING_REMOVE,
				new String[] { this.from.recurringKey(bucket), this.from.dueKey(bucket) }, jobKey, definition);
	}

	/**
	 * Deletes an old bucket's keys when the new layout does not use its tag and nothing
	 * is left in it.
	 */
	private void dropIfUnused(int bucket) {
		if (isReused(bucket)) {
			return;
		}
		RedisClusterAsyncCommands<String, String> commands = this.scripts.connections().commands();
		Long jobs = this.scripts.await(commands.hlen(this.from.payloadKey(bucket)), "reshard cleanup");
		Long definitions = this.scripts.await(commands.hlen(this.from.recurringKey(bucket)), "reshard cleanup");
		long left = ((jobs != null) ? jobs : 0) + ((definitions != null) ? definitions : 0);
		if (left > 0) {
			logger.warn("Bucket {} of the old layout still holds {} jobs or recurring definitions after the "
					+ "change of the bucket count; it stays frozen", this.from.tag(bucket), left);
			return;
		}
		List<String> topics = this.scripts.await(commands.hkeys(this.from.countKey(bucket)), "reshard topics");
		// The count hash stays, with its layout fields: an old-layout instance still
		// gets its refusal, at every moment of the cleanup.
		List<String> doomed = new ArrayList<>(List.of(this.from.bucketKeys(bucket)));
		doomed.remove(this.from.countKey(bucket));
		doomed.add(this.from.recurringKey(bucket));
		List<String> fields = new ArrayList<>();
		for (String field : topics) {
			if (!field.equals("~buckets") && !field.equals(FROZEN)) {
				fields.add(field);
			}
			if (field.indexOf(':') < 0 && !field.startsWith("~")) {
				doomed.add(this.from.readyKey(bucket, field));
				doomed.add(this.from.deadKey(bucket, field));
			}
		}
		List<CompletionStage<?>> deletes = new ArrayList<>();
		for (String key : doomed) {
			deletes.add(commands.del(key));
		}
		if (!fields.isEmpty()) {
			deletes.add(commands.hdel(this.from.countKey(bucket), fields.toArray(String[]::new)));
		}
		awaitAll(deletes, "reshard cleanup");
	}

}
