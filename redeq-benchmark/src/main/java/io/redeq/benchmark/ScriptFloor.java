package io.redeq.benchmark;

import java.util.concurrent.ThreadLocalRandom;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * What W1 single costs before a redeq script does anything: one thread calls EVALSHA of a
 * script that only returns, with the keys and arguments a one-job schedule sends (10
 * keys, 12 arguments, the same payload). Every redeq state change is one script, so no
 * schedule call can be faster than this on the same Redis and client; beside the textbook
 * peer's HSET + ZADD it shows how much of the W1 single gap is the script call itself and
 * how much is the script's work.
 */
final class ScriptFloor {

	static final String ROW = "W1 single floor: an empty script with a schedule's keys and arguments, calls/s";

	private static final int WARM_UP_CALLS = 30_000;

	private final Harness harness;

	ScriptFloor(Harness harness) {
		this.harness = harness;
	}

	void run(int calls) {
		try (StatefulRedisConnection<String, String> connection = this.harness.probe.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			String sha = redis.scriptLoad("return 1");
			String tag = "{" + this.harness.fresh("w1-floor") + ":0:0}";
			String[] keys = new String[10];
			for (int k = 0; k < keys.length; k++) {
				keys[k] = tag + ":key" + k;
			}
			for (int i = 0; i < Math.min(WARM_UP_CALLS, calls); i++) {
				call(redis, sha, keys, i);
			}
			Snapshot before = this.harness.snapshot();
			for (int i = 0; i < calls; i++) {
				call(redis, sha, keys, i);
			}
			Snapshot after = this.harness.snapshot();
			double rate = calls / after.secondsSince(before);
			this.harness.line(
					"RESULT workload=W1 mode=floor system=redeq calls=%d threads=1 calls_per_s=%.0f seconds=%.2f redis_cpu_us_per_call=%.1f client_cpu_us_per_call=%.1f",
					calls, rate, after.secondsSince(before), after.redisCpuPerJob(before, calls),
					after.clientCpuPerJob(before, calls));
			this.harness.table.put(ROW, RedeqContender.NAME, rate, "%,.0f", rate);
		}
	}

	private void call(RedisCommands<String, String> redis, String sha, String[] keys, int i) {
		long due = System.currentTimeMillis() + ThreadLocalRandom.current().nextLong(3_600_000);
		redis.evalsha(sha, ScriptOutputType.INTEGER, keys, "bench", "1000000", "1", "16", "bench:" + i,
				this.harness.payload, "at", Long.toString(due), "R", "", "", "");
	}

}
