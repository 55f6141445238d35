package io.redeq.internal.migrator;

import java.util.function.IntConsumer;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.internal.redis.RedisJobStore;

/**
 * The pub/sub channel on which instances tell a bucket's owner that the bucket got a job
 * earlier than any it had. A hint only: a lost or malformed message delays that job until
 * its owner's next sweep, never loses it; so a failure to publish is logged at debug
 * level and forgotten. In proxy mode, where pub/sub is forbidden, the channel is silent:
 * it neither publishes nor subscribes, and owners rely on their timers and sweeps.
 */
final class WakeChannel implements WakeHints {

	private static final Logger logger = LoggerFactory.getLogger(WakeChannel.class);

	private final RedisJobStore store;

	private final int buckets;

	private final IntConsumer wake;

	private final boolean silent;

	private volatile @Nullable StatefulRedisPubSubConnection<String, String> connection;

	/**
	 * Subscribes nothing yet.
	 * @param wake called with the bucket of every well-formed message, on a Lettuce
	 * thread, so it must not block
	 * @param silent whether to send nothing (proxy mode)
	 */
	WakeChannel(RedisJobStore store, int buckets, IntConsumer wake, boolean silent) {
		this.store = store;
		this.buckets = buckets;
		this.wake = wake;
		this.silent = silent;
	}

	/** Asks the owner of {@code bucket}, whoever it is, to migrate it now. */
	@Override
	public void publish(int bucket, long dueAtMillis) {
		if (this.silent) {
			return;
		}
		this.store.publishWake(bucket, dueAtMillis).exceptionally((ex) -> {
			logger.debug("Could not publish a wake-up for bucket {}; its owner finds the job at its next sweep", bucket,
					ex);
			return 0L;
		});
	}

	/**
	 * Subscribes on a connection of its own, unless already subscribed; the subscription
	 * then lives until {@link #close()} (Lettuce resubscribes after a reconnect).
	 * @throws io.redeq.RedeqUnavailableException if Redis does not confirm in time
	 */
	@Override
	public void subscribe() {
		if (this.silent || this.connection != null) {
			return;
		}
		StatefulRedisPubSubConnection<String, String> connection = this.store.scripts().connections().connectPubSub();
		connection.addListener(new RedisPubSubAdapter<>() {
			@Override
			public void message(String channel, String message) {
				int bucket = bucketOf(message, WakeChannel.this.buckets);
				if (bucket >= 0) {
					WakeChannel.this.wake.accept(bucket);
				}
				else {
					logger.debug("Ignoring malformed wake-up '{}'", message);
				}
			}
		});
		this.store.scripts()
			.await(connection.async().subscribe(this.store.keys().wakeChannel()), "subscribe to wake-ups");
		this.connection = connection;
	}

	/**
	 * The bucket a message names ({@code bucket} or {@code bucket:dueAt}), or -1 when it
	 * names none of {@code buckets}: any client of the server can publish on the channel,
	 * and what it sends must never index out of bounds.
	 */
	static int bucketOf(String message, int buckets) {
		int colon = message.indexOf(':');
		try {
			int bucket = Integer.parseInt((colon > 0) ? message.substring(0, colon) : message);
			return (bucket >= 0 && bucket < buckets) ? bucket : -1;
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	@Override
	public void close() {
		StatefulRedisPubSubConnection<String, String> connection = this.connection;
		if (connection != null) {
			this.store.scripts().connections().close(connection);
		}
	}

}
