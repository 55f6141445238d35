package io.redeq.internal.control;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.internal.LogOnce;
import io.redeq.internal.redis.RedisJobStore;

/**
 * Which topics are paused. The state is one Redis hash, {@code <prefix>:paused} (topic to
 * the Redis time it was paused), changed by one command each (HSET, HDEL), so every
 * instance sees the same answer and a restart forgets nothing.
 *
 * <p>
 * Consumers must not ask Redis before every claim, so each instance that consumes keeps a
 * copy, read again every {@link #REFRESH} (one HGETALL per instance, not per topic or
 * claim). A pause therefore stops claiming on every instance within about half a second,
 * without depending on any message arriving. Scheduling and migration never look at it:
 * jobs of a paused topic keep becoming READY and wait there.
 */
public final class TopicPauses {

	/** How often an instance that consumes reads the paused topics again. */
	public static final Duration REFRESH = Duration.ofMillis(500);

	private static final Logger logger = LoggerFactory.getLogger(TopicPauses.class);

	private final RedisJobStore store;

	private final String key;

	private final AtomicBoolean watching = new AtomicBoolean();

	private final LogOnce failures = new LogOnce(logger);

	private volatile Set<String> paused = Set.of();

	/**
	 * Whether this instance holds every topic: set while the bucket layout recorded in
	 * Redis is not the one it runs on (see {@code LayoutWatch}).
	 */
	private volatile boolean held;

	public TopicPauses(RedisJobStore store) {
		this.store = store;
		this.key = store.keys().pausedKey();
	}

	/**
	 * Pauses a topic on every instance.
	 * @param topic the topic, already valid
	 * @return {@code true} if it was running until now
	 */
	public boolean pause(String topic) {
		Boolean added = this.store.scripts()
			.await(this.store.scripts()
				.connections()
				.commands()
				.hset(this.key, topic, Long.toString(System.currentTimeMillis())), "pause topic " + topic);
		refresh();
		return Boolean.TRUE.equals(added);
	}

	/**
	 * Resumes a topic on every instance.
	 * @param topic the topic, already valid
	 * @return {@code true} if it was paused until now
	 */
	public boolean resume(String topic) {
		Long removed = this.store.scripts()
			.await(this.store.scripts().connections().commands().hdel(this.key, topic), "resume topic " + topic);
		refresh();
		return removed != null && removed > 0;
	}

	/**
	 * Asks Redis.
	 * @param topic the topic
	 * @return whether it is paused now
	 */
	public boolean isPausedInRedis(String topic) {
		return Boolean.TRUE.equals(this.store.scripts()
			.await(this.store.scripts().connections().commands().hexists(this.key, topic),
					"read whether topic " + topic + " is paused"));
	}

	/**
	 * This instance's copy, at most {@link #REFRESH} old while it watches; what consumers
	 * ask before each claim.
	 * @param topic the topic
	 * @return whether it was paused at the last refresh
	 */
	public boolean isPaused(String topic) {
		return this.held || this.paused.contains(topic);
	}

	/**
	 * Holds every topic on this instance, or lets them go on; Redis is not told. The
	 * migrator holds them while the bucket layout recorded in Redis is not the one this
	 * instance runs on, so that its consumers claim nothing in buckets a change of the
	 * count is moving jobs out of.
	 * @param hold whether to hold
	 */
	public void hold(boolean hold) {
		this.held = hold;
	}

	/**
	 * Every paused topic, read from Redis now (also refreshing this instance's copy).
	 * @return the paused topics
	 */
	public Set<String> refresh() {
		Map<String, String> all = this.store.scripts()
			.await(this.store.scripts().connections().commands().hgetall(this.key), "read paused topics");
		Set<String> now = Set.copyOf(all.keySet());
		this.paused = now;
		return now;
	}

	/**
	 * Starts refreshing this instance's copy every {@link #REFRESH}; the first consumer
	 * calls it, later calls do nothing. Stops with the executor.
	 * @param timers the engine's timers
	 */
	public void watch(ScheduledExecutorService timers) {
		if (!this.watching.compareAndSet(false, true)) {
			return;
		}
		timers.scheduleWithFixedDelay(this::refreshQuietly, 0, REFRESH.toMillis(), TimeUnit.MILLISECONDS);
	}

	/**
	 * Runs on the engine's timer thread, which also renews leases and times handlers out:
	 * it sends the read and returns, never waiting for Redis there.
	 */
	private void refreshQuietly() {
		try {
			this.store.scripts().connections().commands().hgetall(this.key).whenComplete((all, ex) -> {
				if (ex != null) {
					// Keeps the last known state: a Redis that does not answer
					// stops claims anyway.
					this.failures.failed("redeq cannot read the paused topics; keeping the last known state", ex);
					return;
				}
				this.paused = Set.copyOf(all.keySet());
				this.failures.recovered("redeq reads the paused topics again{}", "");
			});
		}
		catch (RuntimeException ex) {
			this.failures.failed("redeq cannot read the paused topics; keeping the last known state", ex);
		}
	}

}
