package io.redeq.benchmark.peer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.KeyValue;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The textbook Redis delayed queue, as blog posts and answers build it: schedule = HSET
 * the payload under the job id and ZADD the id with its due time as score; a
 * {@link TextbookMover} moves due ids to a list every 100 ms; consumer threads BLPOP the
 * list. No leases and no acknowledgements: a job a consumer popped is gone from Redis, so
 * a consumer that dies loses it. It is here to be measured beside redeq, not used.
 */
public final class TextbookDelayQueue implements AutoCloseable {

	/** How often the mover runs. */
	public static final long MOVE_INTERVAL_MS = TextbookMover.INTERVAL_MS;

	/** Most ids one mover call moves (and unpacks in Lua). */
	public static final int MOVE_CHUNK = TextbookMover.CHUNK;

	private static final Logger logger = LoggerFactory.getLogger(TextbookDelayQueue.class);

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final RedisClient client;

	private final RedisURI uri;

	private final String delayedKey;

	private final String readyKey;

	private final String payloadsKey;

	/** Single calls from any thread (Lettuce connections are thread-safe). */
	private final StatefulRedisConnection<String, String> producer;

	/** Pipelined batches: commands are written only on flush, so one batch at a time. */
	private final StatefulRedisConnection<String, String> batcher;

	private final TextbookMover mover;

	private final List<Consumer> consumers = new ArrayList<>();

	/** A queue whose three keys start with {@code prefix}; its mover starts at once. */
	public TextbookDelayQueue(RedisClient client, RedisURI uri, String prefix) {
		this.client = client;
		this.uri = uri;
		this.delayedKey = prefix + ":delayed";
		this.readyKey = prefix + ":ready";
		this.payloadsKey = prefix + ":payloads";
		this.producer = client.connect(uri);
		this.batcher = client.connect(uri);
		this.batcher.setAutoFlushCommands(false);
		this.mover = new TextbookMover(client, uri, this.delayedKey, this.readyKey);
	}

	/**
	 * Schedules one job: HSET and ZADD go out back to back and are awaited together, one
	 * round trip. The payload is written first, so a mover never moves an id whose
	 * payload is not there yet.
	 */
	public void schedule(String id, String payload, long dueAtMillis) {
		RedisAsyncCommands<String, String> redis = this.producer.async();
		RedisFuture<Boolean> hset = redis.hset(this.payloadsKey, id, payload);
		RedisFuture<Long> zadd = redis.zadd(this.delayedKey, dueAtMillis, id);
		await(hset, zadd);
	}

	/** Schedules many jobs in one pipeline: every HSET and ZADD, then one flush. */
	public synchronized void scheduleAll(List<Job> jobs) {
		RedisAsyncCommands<String, String> redis = this.batcher.async();
		List<RedisFuture<?>> replies = new ArrayList<>(jobs.size() * 2);
		for (Job job : jobs) {
			replies.add(redis.hset(this.payloadsKey, job.id(), job.payload()));
			replies.add(redis.zadd(this.delayedKey, job.dueAtMillis(), job.id()));
		}
		this.batcher.flushCommands();
		await(replies.toArray(new RedisFuture<?>[0]));
	}

	/**
	 * Starts {@code threads} consumers, each on a connection of its own (BLPOP blocks
	 * it).
	 */
	public synchronized void startConsumers(int threads, Handler handler) {
		for (int i = 0; i < threads; i++) {
			Consumer consumer = new Consumer(this.client.connect(this.uri), handler);
			Thread thread = new Thread(consumer, "textbook-consumer-" + this.consumers.size());
			thread.setDaemon(true);
			consumer.thread = thread;
			this.consumers.add(consumer);
			thread.start();
		}
	}

	/** Jobs not yet handed to a consumer: delayed plus ready. */
	public long pending() {
		return this.producer.sync().zcard(this.delayedKey) + this.producer.sync().llen(this.readyKey);
	}

	@Override
	public synchronized void close() {
		this.mover.close();
		for (Consumer consumer : this.consumers) {
			consumer.stop();
		}
		for (Consumer consumer : this.consumers) {
			consumer.join();
		}
		this.producer.close();
		this.batcher.close();
	}

	private static void await(RedisFuture<?>... futures) {
		if (!LettuceFutures.awaitAll(TIMEOUT, futures)) {
			throw new IllegalStateException("Redis did not answer within " + TIMEOUT);
		}
	}

	/** A job for {@link #scheduleAll}. */
	public record Job(String id, String payload, long dueAtMillis) {
	}

	/** What a consumer runs for each job. */
	@FunctionalInterface
	public interface Handler {

		void handle(String id, @Nullable String payload);

	}

	/** One consumer thread: BLPOP an id, take its payload, run the handler. */
	private final class Consumer implements Runnable {

		private final StatefulRedisConnection<String, String> connection;

		private final Handler handler;

		private volatile boolean running = true;

		private @Nullable Thread thread;

		Consumer(StatefulRedisConnection<String, String> connection, Handler handler) {
			this.connection = connection;
			this.handler = handler;
		}

		@Override
		public void run() {
			String ready = TextbookDelayQueue.this.readyKey;
			String payloads = TextbookDelayQueue.this.payloadsKey;
			while (this.running) {
				try {
					// stop() closes the connection; the timeout is only a backstop.
					KeyValue<String, String> popped = this.connection.sync().blpop(1, ready);
					if (popped == null || !popped.hasValue()) {
						continue;
					}
					String id = popped.getValue();
					// Take the payload and drop it in one round trip: there is no ack,
					// the job left Redis when it was popped.
					RedisAsyncCommands<String, String> redis = this.connection.async();
					RedisFuture<String> payload = redis.hget(payloads, id);
					RedisFuture<Long> deleted = redis.hdel(payloads, id);
					await(payload, deleted);
					this.handler.handle(id, payload.get());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				catch (Exception ex) {
					if (!this.running) {
						return; // stop() closed the connection under a BLPOP
					}
					logger.warn("Textbook consumer failed; going on in 100 ms", ex);
					sleep(100);
				}
			}
		}

		/** Cuts a waiting BLPOP short by closing its connection. */
		void stop() {
			this.running = false;
			this.connection.closeAsync();
		}

		private void sleep(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.running = false;
			}
		}

		void join() {
			try {
				if (this.thread != null) {
					this.thread.join(TimeUnit.SECONDS.toMillis(3));
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
