package io.redeq.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * What W1 single costs before redeq's own work: one thread calls EVALSHA with the keys
 * and arguments a one-job schedule sends (10 keys, 12 arguments, the same payload), of
 * two scripts that do less than redeq's schedule does.
 * <ul>
 * <li>The <em>empty</em> floor only returns. Every redeq state change is one script, so
 * no schedule call can be faster than this on the same Redis and client.</li>
 * <li>The <em>commands</em> floor runs the five Redis commands a new job's schedule runs,
 * and nothing else: {@code TIME} (the Redis clock stamps the job and turns a delay into a
 * due time), {@code HMGET} of the bucket layout and of the due time the migrators were
 * told of (a job sent by an instance that has not seen a reshard is refused, not
 * stranded; the migrator wakes when a job is due before that time), {@code HSETNX} of the
 * record (an id is never stored twice), {@code ZADD} to the due set and {@code HINCRBY}
 * of the topic's pending count (capacity and stats without scanning). No schedule that
 * keeps those guarantees can be faster than this one. Until redeq's schedule read the
 * time told of, the floor ran six: {@code HGET} of the layout, and {@code ZRANGE} of the
 * due set's head.</li>
 * </ul>
 * Beside the textbook peer's {@code HSET} + {@code ZADD}, the two show how much of the W1
 * single gap is the script call, how much the commands the guarantees need, and how much
 * redeq's own logic and client.
 */
final class ScriptFloor {

	static final String ROW = "W1 single floor: an empty script with a schedule's keys and arguments, calls/s";

	static final String COMMANDS_ROW = "W1 single floor: a script running only a schedule's five Redis commands, calls/s";

	static final String CONCURRENT_ROW = "W1c floor: an empty script per job from %d threads, calls/s";

	private static final int WARM_UP_CALLS = 30_000;

	/** As many as redeq's default bucket count, so the sets grow as redeq's do. */
	private static final int BUCKETS = 16;

	private static final String EMPTY = "return 1";

	private static final String COMMANDS = """
			local t = redis.call('TIME')
			local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
			redis.call('HMGET', KEYS[7], '~buckets', '~next')
			redis.call('HSETNX', KEYS[1], ARGV[5], now .. '|' .. ARGV[6])
			redis.call('ZADD', KEYS[3], ARGV[8], ARGV[5])
			redis.call('HINCRBY', KEYS[7], ARGV[1], '1')
			return 1
			""";

	private final Harness harness;

	ScriptFloor(Harness harness) {
		this.harness = harness;
	}

	void run(int calls) {
		measure("floor", EMPTY, ROW, calls);
		measure("commands-floor", COMMANDS, COMMANDS_ROW, calls);
	}

	private void measure(String mode, String script, String row, int calls) {
		try (StatefulRedisConnection<String, String> connection = this.harness.probe.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			String sha = redis.scriptLoad(script);
			String[][] keys = keys(this.harness.fresh("w1-" + mode));
			for (int i = 0; i < Math.min(WARM_UP_CALLS, calls); i++) {
				call(redis, sha, keys, BenchJob.id(calls + i));
			}
			Snapshot before = this.harness.snapshot();
			for (int i = 0; i < calls; i++) {
				call(redis, sha, keys, BenchJob.id(i));
			}
			Snapshot after = this.harness.snapshot();
			double rate = calls / after.secondsSince(before);
			this.harness.line(
					"RESULT workload=W1 mode=%s system=redeq calls=%d threads=1 calls_per_s=%.0f seconds=%.2f redis_cpu_us_per_call=%.1f client_cpu_us_per_call=%.1f",
					mode, calls, rate, after.secondsSince(before), after.redisCpuPerJob(before, calls),
					after.clientCpuPerJob(before, calls));
			this.harness.table.put(row, RedeqContender.NAME, rate, "%,.0f", rate);
			this.harness.table.compareWith(row, ScheduleWorkload.SINGLE_ROW);
			delete(redis, keys);
		}
	}

	/**
	 * W1c's floor: the empty script called from {@code threads} threads on one
	 * connection, one call per job, as W1c's single schedules are without group commit.
	 * Beside the textbook peer's W1c it shows what one script call per job allows at that
	 * concurrency, before redeq's own work.
	 */
	void runConcurrent(int calls, int threads) throws InterruptedException {
		try (StatefulRedisConnection<String, String> connection = this.harness.probe.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			String sha = redis.scriptLoad(EMPTY);
			String[][] keys = keys(this.harness.fresh("w1c-floor"));
			fromThreads(redis, sha, keys, Math.min(WARM_UP_CALLS, calls), threads, calls);
			Snapshot before = this.harness.snapshot();
			fromThreads(redis, sha, keys, calls, threads, 0);
			Snapshot after = this.harness.snapshot();
			double rate = calls / after.secondsSince(before);
			this.harness.line(
					"RESULT workload=W1c mode=floor system=redeq calls=%d threads=%d calls_per_s=%.0f seconds=%.2f redis_cpu_us_per_call=%.1f client_cpu_us_per_call=%.1f",
					calls, threads, rate, after.secondsSince(before), after.redisCpuPerJob(before, calls),
					after.clientCpuPerJob(before, calls));
			String row = String.format(Locale.ROOT, CONCURRENT_ROW, threads);
			this.harness.table.put(row, RedeqContender.NAME, rate, "%,.0f", rate);
			this.harness.table.compareWith(row, String.format(Locale.ROOT, ScheduleWorkload.CONCURRENT_ROW, threads));
		}
	}

	private void fromThreads(RedisCommands<String, String> redis, String sha, String[][] keys, int calls, int threads,
			int firstId) throws InterruptedException {
		AtomicInteger next = new AtomicInteger();
		List<Thread> started = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread thread = new Thread(() -> {
				int i;
				while ((i = next.getAndIncrement()) < calls) {
					call(redis, sha, keys, BenchJob.id(firstId + i));
				}
			}, "bench-w1c-floor-" + t);
			started.add(thread);
			thread.start();
		}
		for (Thread thread : started) {
			thread.join();
		}
	}

	/** Deletes what a floor wrote. */
	static void delete(RedisCommands<String, String> redis, String[][] keys) {
		List<String> all = new ArrayList<>();
		for (String[] bucket : keys) {
			all.addAll(List.of(bucket));
		}
		redis.del(all.toArray(String[]::new));
	}

	/** The bucket a floor puts a job of this id in. */
	static int bucketOf(String id) {
		return Math.floorMod(id.hashCode(), BUCKETS);
	}

	/** Ten keys per bucket, all in the bucket's hash slot. */
	static String[][] keys(String prefix) {
		String[][] keys = new String[BUCKETS][10];
		for (int b = 0; b < BUCKETS; b++) {
			for (int k = 0; k < 10; k++) {
				keys[b][k] = "{" + prefix + ":" + b + "}:key" + k;
			}
		}
		return keys;
	}

	private void call(RedisCommands<String, String> redis, String sha, String[][] keys, String id) {
		long due = System.currentTimeMillis() + ThreadLocalRandom.current().nextLong(3_600_000);
		String[] bucket = keys[bucketOf(id)];
		redis.evalsha(sha, ScriptOutputType.INTEGER, bucket, "bench", "1000000", "1", "16", "bench:" + id,
				this.harness.payload, "at", Long.toString(due), "R", "", "", "");
	}

}
