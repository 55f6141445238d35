package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import io.redeq.RedeqOptions;
import io.redeq.internal.redis.RedisJobStore;

/**
 * Tells a fetcher where READY jobs of its topic are, and lets it wait for them without
 * spinning.
 *
 * <p>
 * The migrator pushes a bucket number onto the topic's signal list whenever it makes jobs
 * READY there. An idle fetcher blocks on that list (BLPOP on a connection of its own,
 * which closing cuts short); without blocking commands it polls the list instead. In
 * proxy mode, where blocking commands are forbidden, it polls too, but the migrator of
 * its own instance also wakes it directly ({@link LocalWorkSignals}), so jobs migrated
 * here start at once and only jobs migrated elsewhere wait for a poll. Signals are hints:
 * after a whole poll interval without one, the fetcher checks whether any of the topic's
 * ready lists exists (one command) and, if so, tries every bucket. A fetcher that woke on
 * a signal and found more jobs than it has slots passes the signal on, so idle consumers
 * on other instances join in.
 */
final class WorkSignals {

	/** How often a fetcher without blocking commands looks at its signal list. */
	private static final Duration NON_BLOCKING_POLL = Duration.ofMillis(200);

	/**
	 * The shortest wait done with BLPOP; a shorter one only looks at the list (a BLPOP
	 * timeout of 0 would block for ever).
	 */
	static final Duration SHORTEST_BLOCK = Duration.ofMillis(10);

	private final SignalList store;

	private final RedeqOptions options;

	private final String topic;

	private final BucketHints hints;

	private final LocalWorkSignals local;

	private final ReentrantLock lock = new ReentrantLock();

	/** Signalled on close, and when this instance's migrator made jobs READY. */
	private final Condition wakeUp = this.lock.newCondition();

	private volatile boolean closed;

	private boolean holdsSignal;

	private long lastScan = System.nanoTime();

	WorkSignals(RedisJobStore store, RedeqOptions options, String topic, LocalWorkSignals local) {
		this(SignalList.of(store, topic, options.commandTimeout()), options, topic, local);
	}

	/** Signals through {@code store}: a test's fake, or the topic's list in Redis. */
	WorkSignals(SignalList store, RedeqOptions options, String topic, LocalWorkSignals local) {
		this.store = store;
		this.options = options;
		this.topic = topic;
		this.local = local;
		this.hints = new BucketHints(options.buckets());
		this.hints.addAll(options.buckets()); // on start, look everywhere once
		local.join(topic, this);
	}

	/** Every bucket worth a claim, oldest hint first; none queued any more. */
	List<Integer> takeHinted() {
		return this.hints.pollAll();
	}

	/** What is known of the buckets' heads. */
	BucketHints heads() {
		return this.hints;
	}

	/** Any bucket may hold READY jobs (after a pause): try each once. */
	void lookEverywhere() {
		this.hints.addAll(this.options.buckets());
	}

	/** Jobs are known to be READY in a bucket: try it at the next claim. */
	void moreHere(int bucket) {
		this.hints.add(bucket);
	}

	/**
	 * This instance's migrator made jobs READY in {@code bucket}: try it now, cutting a
	 * poll's wait short. Called on the migrator's thread; never blocks on Redis.
	 */
	void wakeFor(int bucket) {
		this.hints.add(bucket);
		this.lock.lock();
		try {
			this.wakeUp.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * A claim sent when {@code bucket} had {@code signalsBefore} signals left
	 * {@code remaining} jobs behind there, none scored below {@code atLeast};
	 * {@code full} if this fetcher has no slot left for them.
	 */
	void claimed(int bucket, long signalsBefore, long remaining, double atLeast, boolean full) {
		this.hints.learned(bucket, (remaining > 0) ? atLeast : Double.POSITIVE_INFINITY, signalsBefore);
		if (remaining > 0 && full && this.holdsSignal) {
			this.holdsSignal = false;
			this.store.push(bucket);
		}
	}

	/** Waits until a bucket is worth a claim, or a poll interval passed. */
	void awaitWork() {
		if (!this.hints.isEmpty() || this.closed) {
			return;
		}
		String bucket = this.options.blocksInRedis() ? blockForSignal() : pollForSignal();
		// A bucket number outside this layout was pushed before the bucket count changed:
		// its jobs have moved, and the scan below finds them.
		int number = parseBucket(bucket);
		if (number >= 0 && number < this.options.buckets()) {
			this.hints.add(number);
			this.holdsSignal = true;
			return;
		}
		long pollNanos = this.options.pollInterval().toNanos();
		if (System.nanoTime() - this.lastScan >= pollNanos || this.options.blocksInRedis()) {
			this.lastScan = System.nanoTime();
			if (!this.closed && this.store.anyReady()) {
				this.hints.addAll(this.options.buckets());
			}
		}
	}

	/**
	 * Waits until a bucket is worth a claim, at most {@code max} (a poll's time left, see
	 * {@link TopicPoller}): blocks on the signal list for the shorter of {@code max} and
	 * the poll interval, or only looks at it when {@code max} is too short to block. A
	 * wait shorter than the poll interval is the poll's last, so it also checks whether
	 * any of the topic's ready lists exists: a poll never ends empty without having
	 * looked, even when the signal of a READY job went to another consumer.
	 */
	void awaitWork(Duration max) {
		if (!this.hints.isEmpty() || this.closed) {
			return;
		}
		Duration poll = this.options.pollInterval();
		boolean last = max.compareTo(poll) < 0;
		Duration wait = last ? max : poll;
		String bucket;
		if (this.options.blocksInRedis() && wait.compareTo(SHORTEST_BLOCK) >= 0) {
			bucket = blockForSignal(wait);
		}
		else {
			bucket = this.store.pop();
			if (bucket == null && !this.options.blocksInRedis()) {
				awaitLocalSignal((wait.compareTo(NON_BLOCKING_POLL) < 0) ? wait : NON_BLOCKING_POLL);
			}
		}
		// A bucket number outside this layout was pushed before the bucket count changed:
		// its jobs have moved, and the scan below finds them.
		int number = parseBucket(bucket);
		if (number >= 0 && number < this.options.buckets()) {
			this.hints.add(number);
			this.holdsSignal = true;
			return;
		}
		if (!this.hints.isEmpty()) {
			return; // a local signal
		}
		if (last || System.nanoTime() - this.lastScan >= poll.toNanos()) {
			this.lastScan = System.nanoTime();
			if (!this.closed && this.store.anyReady()) {
				this.hints.addAll(this.options.buckets());
			}
		}
	}

	private static int parseBucket(@Nullable String bucket) {
		if (bucket == null) {
			return -1;
		}
		try {
			return Integer.parseInt(bucket);
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	private @Nullable String blockForSignal() {
		return blockForSignal(this.options.pollInterval());
	}

	private @Nullable String blockForSignal(Duration poll) {
		return this.store.blockingPop(poll);
	}

	private @Nullable String pollForSignal() {
		String signal = this.store.pop();
		if (signal == null) {
			awaitLocalSignal(NON_BLOCKING_POLL);
		}
		return signal;
	}

	/**
	 * Waits until this instance's migrator hints at a bucket, or {@code duration} passed,
	 * or closing. The hints are checked under the lock that {@link #wakeFor(int)} signals
	 * under, so a hint added just before the wait is not missed.
	 */
	private void awaitLocalSignal(Duration duration) {
		long deadline = System.nanoTime() + duration.toNanos();
		this.lock.lock();
		try {
			long left;
			while (!this.closed && this.hints.isEmpty() && (left = deadline - System.nanoTime()) > 0) {
				this.wakeUp.awaitNanos(left);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits the whole {@code duration} (a local wake-up does not shorten it), unless
	 * closing.
	 */
	void pause(Duration duration) {
		long deadline = System.nanoTime() + duration.toNanos();
		this.lock.lock();
		try {
			long left;
			while (!this.closed && (left = deadline - System.nanoTime()) > 0) {
				this.wakeUp.awaitNanos(left);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Cuts a blocked wait short: closing its connection ends the BLPOP at once. */
	void close() {
		this.closed = true;
		this.local.leave(this.topic, this);
		this.lock.lock();
		try {
			this.wakeUp.signalAll();
		}
		finally {
			this.lock.unlock();
		}
		this.store.close();
	}

}
