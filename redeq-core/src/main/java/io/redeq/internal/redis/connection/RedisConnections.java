package io.redeq.internal.redis.connection;

import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

import io.redeq.RedeqUnavailableException;

/**
 * The connections redeq opens on a Lettuce client it was given: one shared, multiplexed
 * connection for scripts, plus dedicated ones for blocking reads and pub/sub. The shared
 * one is opened lazily and re-opened after a failed attempt, so an application can start
 * while Redis is down. Closing closes only these connections, never the client, which its
 * owner closes.
 */
public final class RedisConnections implements AutoCloseable {

	private final AbstractRedisClient client;

	private final List<StatefulConnection<?, ?>> opened = new ArrayList<>();

	private volatile @Nullable StatefulConnection<String, String> shared;

	private volatile boolean closed;

	public RedisConnections(AbstractRedisClient client) {
		if (!(client instanceof RedisClient) && !(client instanceof RedisClusterClient)) {
			throw new IllegalArgumentException(
					"redeq needs a Lettuce RedisClient or RedisClusterClient, but got " + client.getClass().getName());
		}
		this.client = client;
	}

	/**
	 * The client's timer wheel: a deadline on it costs a queue insert, not a thread
	 * wake-up, which matters on a path that sets one per command.
	 */
	public Timer timer() {
		return this.client.getResources().timer();
	}

	/**
	 * Whether the shared connection is open, so that {@link #commands()} returns at once
	 * instead of connecting on the caller's thread.
	 */
	public boolean isSharedOpen() {
		return this.shared != null;
	}

	public boolean isCluster() {
		return this.client instanceof RedisClusterClient;
	}

	/**
	 * Whether the shared connection was opened.
	 * @return true once a command was sent on it
	 */
	public synchronized boolean isConnected() {
		return this.shared != null;
	}

	/**
	 * Commands on the shared connection; both standalone and cluster commands implement
	 * this view.
	 */
	public RedisClusterAsyncCommands<String, String> commands() {
		StatefulConnection<String, String> connection = this.shared;
		if (connection == null) {
			connection = connectShared();
		}
		return asyncOf(connection);
	}

	private synchronized StatefulConnection<String, String> connectShared() {
		if (this.shared == null) {
			this.shared = track(connect());
		}
		return this.shared;
	}

	/**
	 * A connection of its own, for a command that blocks (BLPOP) and must not stall the
	 * others.
	 */
	public StatefulConnection<String, String> connectDedicated() {
		return track(connect());
	}

	public StatefulRedisPubSubConnection<String, String> connectPubSub() {
		try {
			StatefulRedisPubSubConnection<String, String> connection = (this.client instanceof RedisClusterClient cluster)
					? cluster.connectPubSub(ExactUtf8Codec.INSTANCE)
					: ((RedisClient) this.client).connectPubSub(ExactUtf8Codec.INSTANCE);
			return track(connection);
		}
		catch (RuntimeException ex) {
			throw unavailable(ex);
		}
	}

	@SuppressWarnings("unchecked")
	public static RedisClusterAsyncCommands<String, String> asyncOf(StatefulConnection<String, String> connection) {
		if (connection instanceof StatefulRedisClusterConnection<String, String> cluster) {
			return cluster.async();
		}
		return ((StatefulRedisConnection<String, String>) connection).async();
	}

	private StatefulConnection<String, String> connect() {
		if (this.closed) {
			throw new IllegalStateException("redeq is closed");
		}
		try {
			return (this.client instanceof RedisClusterClient cluster) ? cluster.connect(ExactUtf8Codec.INSTANCE)
					: ((RedisClient) this.client).connect(ExactUtf8Codec.INSTANCE);
		}
		catch (RuntimeException ex) {
			throw unavailable(ex);
		}
	}

	private static RedeqUnavailableException unavailable(RuntimeException ex) {
		return new RedeqUnavailableException("Cannot connect to Redis: " + ex.getMessage()
				+ ". redeq retries on the next call; check spring.data.redis.* (or the Lettuce client's URI) and that Redis is up.",
				ex);
	}

	private synchronized <C extends StatefulConnection<?, ?>> C track(C connection) {
		this.opened.add(connection);
		return connection;
	}

	/**
	 * Closes one dedicated connection early, e.g. to cut a blocked read short on
	 * shutdown.
	 */
	public synchronized void close(StatefulConnection<?, ?> connection) {
		if (this.opened.remove(connection)) {
			connection.closeAsync();
		}
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		for (StatefulConnection<?, ?> connection : this.opened) {
			connection.close();
		}
		this.opened.clear();
		this.shared = null;
	}

}
