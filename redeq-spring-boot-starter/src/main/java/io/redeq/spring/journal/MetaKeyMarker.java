package io.redeq.spring.journal;

import java.nio.charset.StandardCharsets;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The engine's own meta hash ({@code <prefix>:meta}, where it records the bucket count at
 * start) as the marker of Redis's data: nothing else deletes it, so its absence means
 * Redis lost its data. Restoring writes the bucket count the way the engine does
 * ({@code HSETNX}), so it never overwrites a count recorded meanwhile.
 */
public final class MetaKeyMarker implements RedisMarker {

	private final RedisConnectionFactory connectionFactory;

	private final byte[] key;

	private final byte[] buckets;

	/**
	 * A marker for one prefix.
	 * @param connectionFactory the application's Redis
	 * @param prefix redeq's key prefix
	 * @param buckets the bucket count the engine records
	 */
	public MetaKeyMarker(RedisConnectionFactory connectionFactory, String prefix, int buckets) {
		this.connectionFactory = connectionFactory;
		// Same name as KeySpace.metaKey() in redeq-core.
		this.key = (prefix + ":meta").getBytes(StandardCharsets.UTF_8);
		this.buckets = Integer.toString(buckets).getBytes(StandardCharsets.UTF_8);
	}

	@Override
	public boolean isPresent() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return Boolean.TRUE.equals(connection.keyCommands().exists(this.key));
		}
	}

	@Override
	public void restore() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.hashCommands().hSetNX(this.key, "buckets".getBytes(StandardCharsets.UTF_8), this.buckets);
		}
	}

}
