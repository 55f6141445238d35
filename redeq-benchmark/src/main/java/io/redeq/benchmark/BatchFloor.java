package io.redeq.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;

/**
 * What W1 batches cost before redeq's own work: one thread sends batches of
 * {@code --batch} jobs the way redeq's {@code scheduleAll} does (one script call per
 * bucket, 8 arguments per job, all calls in flight together, then waits for every reply),
 * after the same batch warm-up redeq gets, to a script that runs only the Redis commands
 * a batch of new jobs needs: {@code TIME}, one {@code HMGET} of the layout and of the due
 * time the migrators were told of, one {@code HMGET} that finds which ids exist already,
 * one {@code HSET} of the records, one {@code ZADD} to the due set and one
 * {@code HINCRBY} of the pending count, per bucket (before redeq read the time told of:
 * an {@code HGET} of the layout, and a {@code ZRANGE} of the due set's head). No payload
 * is turned into JSON and no job is checked: no batch that keeps redeq's guarantees can
 * be faster than this with the same client.
 */
final class BatchFloor {

	static final String ROW = "W1 batches floor: a script running only a batch's Redis commands, jobs/s";

	private static final String SCRIPT = """
			local t = redis.call('TIME')
			local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
			redis.call('HMGET', KEYS[7], '~buckets', '~next')
			local n = tonumber(ARGV[3])
			local created = string.format('%d', now)
			local ids, records, scores = {}, {}, {}
			for i = 1, n do
			  local base = i * 8 - 3
			  ids[i] = ARGV[base]
			  records[2 * i - 1] = ARGV[base]
			  records[2 * i] = created .. '|' .. ARGV[base + 1]
			  scores[2 * i - 1] = ARGV[base + 3]
			  scores[2 * i] = ARGV[base]
			end
			redis.call('HMGET', KEYS[1], unpack(ids))
			redis.call('HSET', KEYS[1], unpack(records))
			redis.call('ZADD', KEYS[3], unpack(scores))
			redis.call('HINCRBY', KEYS[7], ARGV[1], n)
			return 1
			""";

	private static final long HOUR_MS = 3_600_000;

	private final Harness harness;

	BatchFloor(Harness harness) {
		this.harness = harness;
	}

	void run(int jobs) {
		int size = this.harness.options.batch;
		try (StatefulRedisConnection<String, String> connection = this.harness.probe.connect()) {
			RedisAsyncCommands<String, String> redis = connection.async();
			String sha = redis.scriptLoad(SCRIPT).toCompletableFuture().join();
			String[][] warmKeys = ScriptFloor.keys(this.harness.fresh("w1-batch-floor-warm"));
			int warmUpJobs = ScheduleWorkload.batchWarmUpJobs(jobs);
			long deadline = System.nanoTime() + ScheduleWorkload.BATCH_WARM_UP_TIME.toNanos();
			for (int from = 0; from < warmUpJobs && System.nanoTime() < deadline; from += size) {
				send(redis, sha, warmKeys, from, Math.min(size, warmUpJobs - from));
			}
			String[][] keys = ScriptFloor.keys(this.harness.fresh("w1-batch-floor"));
			Snapshot before = this.harness.snapshot();
			for (int from = 0; from < jobs; from += size) {
				send(redis, sha, keys, from, Math.min(size, jobs - from));
			}
			Snapshot after = this.harness.snapshot();
			double rate = jobs / after.secondsSince(before);
			this.harness.line(
					"RESULT workload=W1 mode=batch-floor system=redeq jobs=%d threads=1 batch=%d jobs_per_s=%.0f us_per_job=%.2f seconds=%.2f redis_cpu_us_per_job=%.1f client_cpu_us_per_job=%.1f",
					jobs, size, rate, 1e6 / rate, after.secondsSince(before), after.redisCpuPerJob(before, jobs),
					after.clientCpuPerJob(before, jobs));
			this.harness.table.put(ROW, RedeqContender.NAME, rate, "%,.0f", rate);
			this.harness.table.compareWith(ROW, ScheduleWorkload.BATCH_ROW);
			ScriptFloor.delete(connection.sync(), warmKeys);
			ScriptFloor.delete(connection.sync(), keys);
		}
	}

	/**
	 * One batch: a script call per bucket, all sent before the first reply is awaited.
	 */
	private void send(RedisAsyncCommands<String, String> redis, String sha, String[][] keys, int from, int size) {
		List<List<String>> byBucket = new ArrayList<>(keys.length);
		for (int b = 0; b < keys.length; b++) {
			byBucket.add(new ArrayList<>());
		}
		long base = System.currentTimeMillis() + HOUR_MS;
		ThreadLocalRandom random = ThreadLocalRandom.current();
		for (int i = from; i < from + size; i++) {
			String id = BenchJob.id(i);
			List<String> args = byBucket.get(ScriptFloor.bucketOf(id));
			args.addAll(List.of("bench:" + id, this.harness.payload, "at",
					Long.toString(base + random.nextLong(HOUR_MS)), "R", "", "", ""));
		}
		List<RedisFuture<Long>> replies = new ArrayList<>(keys.length);
		for (int b = 0; b < keys.length; b++) {
			List<String> jobArgs = byBucket.get(b);
			if (jobArgs.isEmpty()) {
				continue;
			}
			List<String> args = new ArrayList<>(jobArgs.size() + 4);
			args.addAll(List.of("bench", "0", Integer.toString(jobArgs.size() / 8), Integer.toString(keys.length)));
			args.addAll(jobArgs);
			replies.add(redis.evalsha(sha, ScriptOutputType.INTEGER, keys[b], args.toArray(String[]::new)));
		}
		replies.forEach((reply) -> reply.toCompletableFuture().join());
	}

}
