package io.redeq.internal.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisClient;

import io.redeq.Redeq;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the script tests of this package share: an engine with the default prefix and
 * bucket count that schedules and reads jobs through the public API (its migrator off, so
 * only the test moves jobs), and the job store beside it that calls one script at a time.
 */
final class ScriptFixture implements AutoCloseable {

	final KeySpace keys = new KeySpace("redeq", 16);

	final Redeq redeq;

	final RedisJobStore store;

	private final RedisConnections connections;

	ScriptFixture(RedisClient lettuce) {
		this.redeq = Redeq.builder(lettuce).migratorEnabled(false).build();
		this.connections = new RedisConnections(lettuce);
		this.store = new RedisJobStore(this.keys, new ScriptRunner(this.connections, Duration.ofSeconds(10)));
	}

	<T> T await(CompletionStage<T> stage) {
		return this.store.scripts().await(stage, "test");
	}

	/**
	 * The first {@code count} ids {@code <prefix>0, <prefix>1, ...} of the topic that
	 * fall in the bucket.
	 */
	List<String> idsInBucket(String topic, String prefix, int bucket, int count) {
		List<String> ids = new ArrayList<>();
		for (int i = 0; ids.size() < count && i < 100_000; i++) {
			if (this.keys.bucketOf(KeySpace.jobKey(topic, prefix + i)) == bucket) {
				ids.add(prefix + i);
			}
		}
		assertThat(ids).hasSize(count);
		return ids;
	}

	@Override
	public void close() {
		this.redeq.close();
		this.connections.close();
	}

}
