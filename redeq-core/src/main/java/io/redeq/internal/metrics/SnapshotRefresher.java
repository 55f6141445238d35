package io.redeq.internal.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.RedeqSnapshot;
import io.redeq.TopicStats;
import io.redeq.internal.LogOnce;
import io.redeq.internal.redis.BucketInspection;
import io.redeq.internal.redis.RedisJobStore;

/**
 * Keeps a {@link RedeqSnapshot} fresh: one read-only script per bucket, pipelined, every
 * refresh interval, started on first use. Readers get the last snapshot without touching
 * Redis.
 */
public final class SnapshotRefresher {

	private static final Logger logger = LoggerFactory.getLogger(SnapshotRefresher.class);

	private final Supplier<RedisJobStore> store;

	private final ScheduledExecutorService timers;

	private final Duration interval;

	private final Supplier<List<Integer>> ownedBuckets;

	private final Supplier<Set<String>> subscribedTopics;

	private final Supplier<Set<String>> pausedTopics;

	private final List<Consumer<RedeqSnapshot>> listeners = new CopyOnWriteArrayList<>();

	private final AtomicBoolean started = new AtomicBoolean();

	private final LogOnce failures = new LogOnce(logger);

	private volatile RedeqSnapshot latest = RedeqSnapshot.empty();

	public SnapshotRefresher(RedisJobStore store, ScheduledExecutorService timers, Duration interval,
			Supplier<List<Integer>> ownedBuckets, Supplier<Set<String>> subscribedTopics,
			Supplier<Set<String>> pausedTopics) {
		this(() -> store, timers, interval, ownedBuckets, subscribedTopics, pausedTopics);
	}

	/**
	 * A refresher that reads the store of the bucket layout its engine runs on at each
	 * refresh (it changes when the engine follows a change of the bucket count).
	 * @param store the current job store
	 * @param timers where the refresh runs
	 * @param interval how often
	 * @param ownedBuckets the buckets this instance migrates
	 * @param subscribedTopics the topics this instance consumes
	 * @param pausedTopics the paused topics
	 */
	public SnapshotRefresher(Supplier<RedisJobStore> store, ScheduledExecutorService timers, Duration interval,
			Supplier<List<Integer>> ownedBuckets, Supplier<Set<String>> subscribedTopics,
			Supplier<Set<String>> pausedTopics) {
		this.pausedTopics = pausedTopics;
		this.store = store;
		this.timers = timers;
		this.interval = interval;
		this.ownedBuckets = ownedBuckets;
		this.subscribedTopics = subscribedTopics;
	}

	/**
	 * The last snapshot; the first call starts the background refresh and takes one at
	 * once.
	 */
	public RedeqSnapshot latest() {
		if (this.started.compareAndSet(false, true)) {
			refresh();
			this.timers.scheduleWithFixedDelay(this::refresh, this.interval.toMillis(), this.interval.toMillis(),
					TimeUnit.MILLISECONDS);
		}
		return this.latest;
	}

	/** Told of every new snapshot (gauges register meters for new topics). */
	public void onRefresh(Consumer<RedeqSnapshot> listener) {
		this.listeners.add(listener);
	}

	/** Takes a snapshot now. */
	public synchronized RedeqSnapshot refresh() {
		try {
			this.latest = take();
			this.failures.recovered("redeq statistics refresh works again{}", "");
		}
		catch (RuntimeException ex) {
			this.failures.failed("redeq cannot refresh its statistics", ex);
			RedeqSnapshot previous = this.latest;
			this.latest = new RedeqSnapshot(Instant.now(), false, ex.getMessage(), previous.topics(),
					previous.migrationLag(), previous.oldestReadyWait(), this.ownedBuckets.get(),
					this.subscribedTopics.get(), previous.pausedTopics());
		}
		for (Consumer<RedeqSnapshot> listener : this.listeners) {
			try {
				listener.accept(this.latest);
			}
			catch (RuntimeException ex) {
				logger.debug("Snapshot listener failed", ex);
			}
		}
		return this.latest;
	}

	private RedeqSnapshot take() {
		RedisJobStore store = this.store.get();
		int buckets = store.keys().buckets();
		List<CompletionStage<BucketInspection>> replies = new ArrayList<>(buckets);
		for (int b = 0; b < buckets; b++) {
			replies.add(store.admin().inspect(b));
		}
		Map<String, long[]> counts = new TreeMap<>();
		Map<String, Duration> oldestReady = new TreeMap<>();
		long lag = 0;
		for (CompletionStage<BucketInspection> reply : replies) {
			BucketInspection bucket = store.scripts().await(reply, "inspect buckets");
			lag = Math.max(lag, bucket.migrationLagMillis());
			bucket.counts().forEach((field, count) -> {
				int colon = field.lastIndexOf(':');
				long[] sums = counts.computeIfAbsent(field.substring(0, colon), (t) -> new long[4]);
				sums["DRIX".indexOf(field.charAt(colon + 1))] += count;
			});
			bucket.oldestReadyDue()
				.forEach((topic, due) -> oldestReady.merge(topic, Duration.ofMillis(Math.max(0, bucket.now() - due)),
						(a, b) -> (a.compareTo(b) >= 0) ? a : b));
		}
		Map<String, TopicStats> topics = new TreeMap<>();
		counts.forEach((topic, c) -> topics.put(topic, new TopicStats(topic, c[0], c[1], c[2], c[3])));
		return new RedeqSnapshot(Instant.now(), true, null, Map.copyOf(topics), Duration.ofMillis(lag),
				Map.copyOf(oldestReady), this.ownedBuckets.get(), this.subscribedTopics.get(), this.pausedTopics.get());
	}

}
