package io.redeq.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redisson's {@link RDelayedQueue} in front of an {@link RBlockingQueue}, with Redisson's
 * default client settings and a string codec. Each opening has a Redisson client of its
 * own, shut down when closed, so no idle Redisson connection adds commands to another
 * system's figures. A job counts as done when its handler returns (there is no ack).
 *
 * <p>
 * A delayed queue holds values, not jobs with ids: the value is the 22-character id
 * followed by the payload, so the handler knows which job it got (and W4 stores the same
 * information for every system).
 */
final class RedissonContender implements Contender {

	static final String NAME = "redisson";

	private static final Logger logger = LoggerFactory.getLogger(RedissonContender.class);

	private static final long TIMEOUT_SECONDS = 30;

	private final RedisURI uri;

	RedissonContender(RedisURI uri) {
		this.uri = uri;
	}

	@Override
	public String name() {
		return NAME;
	}

	/**
	 * {@code RBatch} has no delayed queue, so a batch is async offers awaited together.
	 */
	@Override
	public String batchHow() {
		return "offerAsync_in_flight(RBatch_has_no_delayed_queue)";
	}

	@Override
	public QueueUnderTest open(String namespace, @Nullable Tracker tracker) {
		Config config = new Config();
		config.setCodec(StringCodec.INSTANCE);
		config.useSingleServer().setAddress("redis://" + this.uri.getHost() + ":" + this.uri.getPort());
		RedissonClient redisson = Redisson.create(config);
		return new RedissonQueue(redisson, namespace, tracker);
	}

	private static final class RedissonQueue implements QueueUnderTest {

		private final RedissonClient redisson;

		private final RBlockingQueue<String> queue;

		private final RDelayedQueue<String> delayed;

		private final @Nullable Tracker tracker;

		private final List<Thread> consumers = new ArrayList<>();

		private volatile boolean running = true;

		RedissonQueue(RedissonClient redisson, String name, @Nullable Tracker tracker) {
			this.redisson = redisson;
			this.queue = redisson.getBlockingQueue(name);
			this.delayed = redisson.getDelayedQueue(this.queue);
			this.tracker = tracker;
		}

		@Override
		public void schedule(BenchJob job) {
			this.delayed.offer(value(job), delay(job), TimeUnit.MILLISECONDS);
		}

		@Override
		public void scheduleBatch(List<BenchJob> jobs) {
			CompletableFuture<?>[] offers = new CompletableFuture<?>[jobs.size()];
			for (int i = 0; i < offers.length; i++) {
				BenchJob job = jobs.get(i);
				offers[i] = this.delayed.offerAsync(value(job), delay(job), TimeUnit.MILLISECONDS)
					.toCompletableFuture();
			}
			try {
				CompletableFuture.allOf(offers).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while offering", ex);
			}
			catch (ExecutionException | TimeoutException ex) {
				throw new IllegalStateException("Redisson offers failed: " + ex, ex);
			}
		}

		/**
		 * Redisson takes a delay and adds it to the JVM's clock; on this machine that is
		 * the clock Redis reads too.
		 */
		private static long delay(BenchJob job) {
			return Math.max(0, job.dueAtMillis() - System.currentTimeMillis());
		}

		private static String value(BenchJob job) {
			return job.id() + job.payload();
		}

		@Override
		public void consume(int concurrency) {
			Tracker tracker = this.tracker;
			if (tracker == null) {
				throw new IllegalStateException("opened without a tracker");
			}
			for (int i = 0; i < concurrency; i++) {
				Thread thread = new Thread(() -> consumeLoop(tracker), "redisson-consumer-" + i);
				thread.setDaemon(true);
				this.consumers.add(thread);
				thread.start();
			}
		}

		private void consumeLoop(Tracker tracker) {
			while (this.running) {
				try {
					String value = this.queue.poll(1, TimeUnit.SECONDS);
					if (value != null) {
						tracker.started(value.substring(0, Math.min(value.length(), BenchJob.ID_LENGTH)));
						tracker.finished();
					}
				}
				catch (InterruptedException ex) {
					return; // close() stops the consumers this way
				}
				catch (RuntimeException ex) {
					if (!this.running) {
						return;
					}
					logger.warn("Redisson consumer failed; going on in 100 ms", ex);
					sleep100();
				}
			}
		}

		private void sleep100() {
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				this.running = false;
			}
		}

		@Override
		public long pending() {
			return this.delayed.size() + this.queue.size();
		}

		@Override
		public void close() {
			this.running = false;
			for (Thread consumer : this.consumers) {
				consumer.interrupt();
			}
			for (Thread consumer : this.consumers) {
				try {
					consumer.join(TimeUnit.SECONDS.toMillis(3));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			this.delayed.destroy();
			this.redisson.shutdown(0, 2, TimeUnit.SECONDS);
		}

	}

}
