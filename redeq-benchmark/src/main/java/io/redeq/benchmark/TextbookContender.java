package io.redeq.benchmark;

import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;

import io.redeq.benchmark.peer.TextbookDelayQueue;

/**
 * The textbook Redis delayed queue ({@link TextbookDelayQueue}) on the benchmark's
 * Lettuce client. A job counts as done when its handler returns: there is no ack.
 */
final class TextbookContender implements Contender {

	static final String NAME = "textbook";

	private final RedisClient client;

	private final RedisURI uri;

	TextbookContender(RedisClient client, RedisURI uri) {
		this.client = client;
		this.uri = uri;
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public String batchHow() {
		return "pipeline(HSET+ZADD_per_job)";
	}

	@Override
	public QueueUnderTest open(String namespace, @Nullable Tracker tracker) {
		return new TextbookQueue(new TextbookDelayQueue(this.client, this.uri, namespace), tracker);
	}

	private record TextbookQueue(TextbookDelayQueue queue, @Nullable Tracker tracker) implements QueueUnderTest {

		@Override
		public void schedule(BenchJob job) {
			this.queue.schedule(job.id(), job.payload(), job.dueAtMillis());
		}

		@Override
		public void scheduleBatch(List<BenchJob> jobs) {
			List<TextbookDelayQueue.Job> batch = new ArrayList<>(jobs.size());
			for (BenchJob job : jobs) {
				batch.add(new TextbookDelayQueue.Job(job.id(), job.payload(), job.dueAtMillis()));
			}
			this.queue.scheduleAll(batch);
		}

		@Override
		public void consume(int concurrency) {
			Tracker tracker = this.tracker;
			if (tracker == null) {
				throw new IllegalStateException("opened without a tracker");
			}
			this.queue.startConsumers(concurrency, (id, payload) -> {
				tracker.started(id);
				tracker.finished();
			});
		}

		@Override
		public long pending() {
			return this.queue.pending();
		}

		@Override
		public void close() {
			this.queue.close();
		}

	}

}
