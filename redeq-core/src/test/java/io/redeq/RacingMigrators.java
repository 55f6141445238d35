package io.redeq;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.lettuce.core.RedisClient;

import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.MigrateResult;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptRunner;

/**
 * Two migrators hammering the same bucket at once, each with its own connection and owner
 * token, as happens when a lock is lost to a pause: correctness must come from the script
 * alone.
 */
final class RacingMigrators {

	private RacingMigrators() {
	}

	static void run(RedisClient lettuce, String prefix, int total) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try (RedisConnections first = new RedisConnections(lettuce);
				RedisConnections second = new RedisConnections(lettuce)) {
			Future<Integer> a = pool.submit(migrateAll(first, prefix, "owner-a"));
			Future<Integer> b = pool.submit(migrateAll(second, prefix, "owner-b"));
			int moved = a.get() + b.get();
			if (moved != total) {
				throw new AssertionError("the two migrators moved " + moved + " jobs, expected " + total);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	private static Callable<Integer> migrateAll(RedisConnections connections, String prefix, String owner) {
		RedisJobStore store = new RedisJobStore(new KeySpace(prefix, 1),
				new ScriptRunner(connections, Duration.ofSeconds(10)));
		return () -> {
			int moved = 0;
			for (int round = 0; round < 10_000; round++) {
				MigrateResult result = store.migrate(0, 50, true, owner, 10_000, Duration.ofDays(7).toMillis());
				moved += result.migrated();
				if (result.migrated() == 0 && result.nextDue() < 0) {
					return moved;
				}
			}
			throw new AssertionError("migration did not finish in 10000 rounds");
		};
	}

}
