package io.redeq.internal.consumer;

import java.time.Duration;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.api.StatefulConnection;
import org.jspecify.annotations.Nullable;

import io.redeq.RedeqUnavailableException;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.connection.RedisConnections;

/**
 * What {@link WorkSignals} needs from Redis: one topic's signal list (bucket numbers the
 * migrator pushes when it makes jobs READY), popped with or without blocking, and the
 * check whether any of the topic's ready sets exists.
 */
interface SignalList {

	/** Pushes {@code bucket} for the topic's other consumers; a hint, not awaited. */
	void push(int bucket);

	/**
	 * Whether any bucket has READY jobs of the topic.
	 * @throws io.redeq.RedeqException when Redis does not answer or refuses
	 */
	boolean anyReady();

	/**
	 * Takes the oldest signal, without waiting.
	 * @return a bucket number as pushed, or {@code null} when the list is empty
	 */
	@Nullable String pop();

	/**
	 * Waits up to {@code wait} for a signal, on a connection of its own that
	 * {@link #close()} closes to cut the wait short.
	 * @return a bucket number as pushed, or {@code null} when none came
	 */
	@Nullable String blockingPop(Duration wait);

	/** Ends a blocking wait under way, and any to come. */
	void close();

	/** The topic's signal list in Redis. */
	static SignalList of(RedisJobStore store, String topic, Duration commandTimeout) {
		return new RedisSignalList(store, topic, commandTimeout);
	}

	/** The signal list in Redis, with the connection its blocking waits hold. */
	final class RedisSignalList implements SignalList {

		private final RedisJobStore store;

		private final String topic;

		private final String signalKey;

		private final Duration commandTimeout;

		private volatile @Nullable StatefulConnection<String, String> blockingConnection;

		private volatile boolean closed;

		RedisSignalList(RedisJobStore store, String topic, Duration commandTimeout) {
			this.store = store;
			this.topic = topic;
			this.signalKey = store.keys().signalKey(topic);
			this.commandTimeout = commandTimeout;
		}

		@Override
		public void push(int bucket) {
			this.store.signal(this.topic, bucket);
		}

		@Override
		public boolean anyReady() {
			return this.store.anyReady(this.topic);
		}

		@Override
		public @Nullable String pop() {
			return this.store.scripts()
				.await(this.store.scripts().connections().commands().lpop(this.signalKey),
						"poll for work on " + this.topic);
		}

		/**
		 * BLPOP for {@code wait} (whole milliseconds; Redis 6 takes fractional seconds).
		 */
		@Override
		public @Nullable String blockingPop(Duration wait) {
			try {
				KeyValue<String, String> signal = this.store.scripts()
					.await(RedisConnections.asyncOf(blockingConnection())
						.blpop(wait.toMillis() / 1000.0, this.signalKey), "wait for work on topic " + this.topic,
							wait.plus(this.commandTimeout));
				return (signal != null && signal.hasValue()) ? signal.getValue() : null;
			}
			catch (RedeqUnavailableException ex) {
				if (ex.getCause() instanceof RedisCommandTimeoutException && !this.closed) {
					return null; // the client's own command timeout is shorter than our
									// poll:
									// same as no signal
				}
				throw ex;
			}
		}

		private StatefulConnection<String, String> blockingConnection() {
			StatefulConnection<String, String> connection = this.blockingConnection;
			if (connection == null) {
				connection = this.store.scripts().connections().connectDedicated();
				this.blockingConnection = connection;
				// close() sets closed before it reads the connection, and we publish the
				// connection before reading closed: whichever runs second sees the other,
				// so a close that raced the first BLPOP still cuts it short instead of
				// waiting a poll interval.
				if (this.closed) {
					this.store.scripts().connections().close(connection);
				}
			}
			return connection;
		}

		@Override
		public void close() {
			this.closed = true;
			StatefulConnection<String, String> connection = this.blockingConnection;
			if (connection != null) {
				this.store.scripts().connections().close(connection);
			}
		}

	}

}
