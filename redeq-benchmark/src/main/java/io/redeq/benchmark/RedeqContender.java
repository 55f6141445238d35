package io.redeq.benchmark;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisClient;
import org.jspecify.annotations.Nullable;

import io.redeq.Delivery;
import io.redeq.Job;
import io.redeq.JobLifecycleListener;
import io.redeq.Redeq;
import io.redeq.SubscriptionOptions;

/**
 * redeq through its public API: one engine per opening, on a key prefix of its own, with
 * the engine settings given on the command line.
 */
final class RedeqContender implements Contender {

	static final String NAME = "redeq";

	private static final String TOPIC = "bench";

	private final RedisClient client;

	private final Options options;

	RedeqContender(RedisClient client, Options options) {
		this.client = client;
		this.options = options;
	}

	@Override
	public String name() {
		return NAME;
	}

	@Override
	public String batchHow() {
		return "scheduleAll";
	}

	@Override
	public QueueUnderTest open(String namespace, @Nullable Tracker tracker) {
		Redeq redeq = engine(namespace, (tracker != null) ? new Completions(tracker) : null);
		return new RedeqQueue(redeq, tracker);
	}

	/** An engine with the command line's settings, for W5 too. */
	Redeq engine(String prefix, @Nullable JobLifecycleListener listener) {
		Redeq.Builder builder = defaults().prefix(prefix);
		if (listener != null) {
			builder.lifecycleListener(listener);
		}
		return builder.build();
	}

	/** A builder with the command line's engine settings, redeq's defaults otherwise. */
	Redeq.Builder defaults() {
		Redeq.Builder builder = Redeq.builder(this.client);
		long maxPending = maxPending(this.options);
		if (maxPending > builder.options().maxPending()) {
			builder.maxPending(maxPending);
		}
		if (this.options.buckets > 0) {
			builder.buckets(this.options.buckets);
		}
		if (this.options.sweepMs > 0) {
			builder.sweepInterval(Duration.ofMillis(this.options.sweepMs));
		}
		if (this.options.lockTtlMs > 0) {
			builder.lockTtl(Duration.ofMillis(this.options.lockTtlMs));
		}
		if (this.options.migrateBatch > 0) {
			builder.batchSize(this.options.migrateBatch);
		}
		if (this.options.prefetch >= 0) {
			builder.prefetch(this.options.prefetch);
		}
		return builder;
	}

	/**
	 * W6 holds 1M jobs in one topic. redeq splits {@code max-pending} evenly over the
	 * buckets and the ids never spread exactly evenly, so its default of 1M refuses jobs
	 * a little short of 1M: W6 runs with twice its size. The capacity check runs all the
	 * same, so W1 and W6 stay comparable.
	 */
	static long maxPending(Options options) {
		return options.workloads.contains("W6") ? 2L * options.growthJobs : 0;
	}

	private static Job job(BenchJob job) {
		return Job.builder(TOPIC)
			.id(job.id())
			.payload(valueOf(job.payload()))
			.dueAt(Instant.ofEpochMilli(job.dueAtMillis()))
			.build();
	}

	/**
	 * The value whose JSON is the workload's payload. Every system gets the same JSON
	 * text to store, a JSON string of x's ({@link Harness}); redeq's codec writes a Java
	 * {@code String} as a JSON string, so it is handed the text between the quotes.
	 * Handed the JSON text itself, it stored it as a JSON string again: 104 bytes where
	 * the peers stored 100.
	 */
	static String valueOf(String jsonString) {
		if (jsonString.length() < 2 || jsonString.charAt(0) != '"' || jsonString.charAt(jsonString.length() - 1) != '"'
				|| jsonString.indexOf('\\') >= 0) {
			throw new IllegalArgumentException(
					"The benchmark's payload must be a JSON string without escapes: " + jsonString);
		}
		return jsonString.substring(1, jsonString.length() - 1);
	}

	/** A job counts as done when its completion is acknowledged in Redis. */
	private record Completions(Tracker tracker) implements JobLifecycleListener {

		@Override
		public void onSuccess(Delivery delivery, Duration handlerDuration) {
			this.tracker.finished();
		}

	}

	private static final class RedeqQueue implements QueueUnderTest {

		private final Redeq redeq;

		private final @Nullable Tracker tracker;

		RedeqQueue(Redeq redeq, @Nullable Tracker tracker) {
			this.redeq = redeq;
			this.tracker = tracker;
		}

		@Override
		public void schedule(BenchJob job) {
			this.redeq.client().schedule(job(job));
		}

		@Override
		public boolean schedulesAsync() {
			return true;
		}

		@Override
		public CompletableFuture<?> scheduleAsync(BenchJob job) {
			return this.redeq.client().async().schedule(job(job));
		}

		@Override
		public void scheduleBatch(List<BenchJob> jobs) {
			List<Job> batch = new ArrayList<>(jobs.size());
			for (BenchJob job : jobs) {
				batch.add(job(job));
			}
			this.redeq.client().scheduleAll(batch);
		}

		@Override
		public void consume(int concurrency) {
			Tracker tracker = this.tracker;
			if (tracker == null) {
				throw new IllegalStateException("opened without a tracker");
			}
			this.redeq.subscribe(TOPIC, String.class, (payload, delivery) -> tracker.started(delivery.id()),
					SubscriptionOptions.builder().concurrency(concurrency).build());
		}

		@Override
		public long pending() {
			return this.redeq.admin().stats(TOPIC).pending();
		}

		@Override
		public void close() {
			this.redeq.close();
		}

	}

}
