package io.redeq.migrator;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.RedeqOptions;
import io.redeq.internal.JobEvents;
import io.redeq.internal.LogOnce;
import io.redeq.redis.BucketPeek;
import io.redeq.redis.MigrateResult;
import io.redeq.redis.RedisJobStore;
import io.redeq.schedule.WakeUps;

/**
 * Moves due jobs from this instance's buckets to their topics' ready lists. One thread
 * per engine.
 *
 * <p>
 * Ownership: every instance announces itself with a heartbeat and keeps about
 * {@code buckets / live instances} bucket locks (SET NX PX with its id, renewed by each
 * migrate call, released on close), trying buckets from an offset of its own so instances
 * do not collide. A dead instance stops renewing; its locks expire within
 * {@code lock-ttl} and the others take them.
 *
 * <p>
 * Timing: a bucket is migrated until less than a batch is due, then left until its next
 * due job, measured from the Redis time the script returned (so the local clock plays no
 * part). It is woken early when this instance schedules an earlier job, or when another
 * instance says so on the wake channel. Both are hints: every sweep interval a sweep
 * looks at the head of each owned bucket (one script on a standalone Redis), renews the
 * locks, and migrates where anything is due, a lease expired or a dead job outlived its
 * retention; that alone keeps everything correct.
 */
public final class Migrator implements WakeUps, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(Migrator.class);

	private static final long NEVER = Long.MAX_VALUE;

	private final RedisJobStore store;

	private final RedeqOptions options;

	private final String instanceId;

	private final JobEvents events;

	private final int buckets;

	private final int offset;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition wakeUp = this.lock.newCondition();

	/** Guarded by {@link #lock}. */
	private final boolean[] owned;

	/**
	 * System.nanoTime at which each owned bucket is due a migrate call; guarded by
	 * {@link #lock}.
	 */
	private final long[] wakeAt;

	private final Thread thread;

	private final LogOnce failures = new LogOnce(logger);

	private volatile boolean running = true;

	private long nextOwnershipCheck;

	private long nextSweep;

	private @Nullable StatefulRedisPubSubConnection<String, String> pubSub;

	public Migrator(RedisJobStore store, RedeqOptions options, String instanceId, JobEvents events) {
		this.store = store;
		this.options = options;
		this.instanceId = instanceId;
		this.events = events;
		this.buckets = options.buckets();
		this.offset = Math.floorMod(instanceId.hashCode(), this.buckets);
		this.owned = new boolean[this.buckets];
		this.wakeAt = new long[this.buckets];
		Arrays.fill(this.wakeAt, NEVER);
		this.nextOwnershipCheck = System.nanoTime();
		this.nextSweep = this.nextOwnershipCheck;
		this.thread = new Thread(this::run, "redeq-migrator-" + options.prefix());
		this.thread.setDaemon(true);
	}

	public void start() {
		this.thread.start();
	}

	/** Buckets this instance migrates right now. */
	public int[] ownedBuckets() {
		this.lock.lock();
		try {
			return java.util.stream.IntStream.range(0, this.buckets).filter((b) -> this.owned[b]).toArray();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void earlierJob(int bucket, long dueAtMillis) {
		if (this.running && wake(bucket)) {
			return;
		}
		this.store.publishWake(bucket, dueAtMillis).exceptionally((ex) -> {
			logger.debug("Could not publish a wake-up for bucket {}; its owner finds the job at its next sweep", bucket,
					ex);
			return 0L;
		});
	}

	/** Wakes an owned bucket now; returns false if this instance does not own it. */
	private boolean wake(int bucket) {
		this.lock.lock();
		try {
			if (!this.owned[bucket]) {
				return false;
			}
			this.wakeAt[bucket] = System.nanoTime();
			this.wakeUp.signal();
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void run() {
		while (this.running) {
			try {
				if (System.nanoTime() - this.nextOwnershipCheck >= 0) {
					maintainOwnership();
					this.nextOwnershipCheck = System.nanoTime() + renewInterval().toNanos();
				}
				if (System.nanoTime() - this.nextSweep >= 0) {
					sweep();
					this.nextSweep = System.nanoTime() + sweepInterval().toNanos();
				}
				for (int bucket = 0; bucket < this.buckets && this.running; bucket++) {
					if (isDue(bucket, System.nanoTime())) {
						migrate(bucket, false);
					}
				}
				this.failures.recovered("Migrator of prefix '{}' works again", this.options.prefix());
			}
			catch (RuntimeException ex) {
				this.failures.failed("Migrator of prefix '" + this.options.prefix()
						+ "' cannot reach Redis or run its scripts; retrying every second until it can", ex);
				backOffAll();
			}
			awaitNextWakeUp();
		}
	}

	/**
	 * The safety net: one look at the head of every owned bucket's indexes (one script on
	 * a standalone Redis), renewing the locks on the way; a full migrate only where
	 * something is due, a lease expired or a dead job outlived its retention. Everything
	 * an event-driven wake-up missed is caught here within one sweep interval.
	 */
	private void sweep() {
		int[] mine = ownedBuckets();
		if (mine.length == 0) {
			return;
		}
		long retention = this.options.deadLetterRetention().toMillis();
		for (BucketPeek peek : this.store.peek(mine, this.instanceId, this.options.lockTtl().toMillis())) {
			if (!peek.held()) {
				lose(peek.bucket());
			}
			else if (peek.needsSweep(retention)) {
				migrate(peek.bucket(), true);
			}
			else if (peek.nextDue() >= 0) {
				wakeAt(peek.bucket(), System.nanoTime() + (peek.nextDue() - peek.now()) * 1_000_000L);
			}
		}
	}

	private boolean isDue(int bucket, long now) {
		this.lock.lock();
		try {
			return this.owned[bucket] && now - this.wakeAt[bucket] >= 0;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void migrate(int bucket, boolean sweep) {
		MigrateResult result = this.store.migrate(bucket, this.options.batchSize(), sweep, this.instanceId,
				this.options.lockTtl().toMillis(), this.options.deadLetterRetention().toMillis());
		result.readyByTopic().forEach((topic, count) -> {
			this.store.signal(topic, bucket).exceptionally((ex) -> null);
		});
		if (result.migrated() + result.reclaimed() > 0) {
			this.events.migrated(bucket, result.migrated(), result.reclaimed());
		}
		if (!result.lockHeld()) {
			lose(bucket);
			return;
		}
		boolean more = result.mayHaveMore(this.options.batchSize());
		long until = (result.nextDue() >= 0)
				? System.nanoTime() + Math.max(0, result.nextDue() - result.now()) * 1_000_000L : NEVER;
		wakeAt(bucket, more ? System.nanoTime() : until);
	}

	private void wakeAt(int bucket, long nanos) {
		this.lock.lock();
		try {
			if (this.owned[bucket]) {
				this.wakeAt[bucket] = nanos;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private void lose(int bucket) {
		forget(bucket);
		logger.debug("Lost the lock of bucket {} to another instance", bucket);
	}

	/** Stops migrating a bucket, without touching its lock in Redis. */
	private void forget(int bucket) {
		this.lock.lock();
		try {
			this.owned[bucket] = false;
			this.wakeAt[bucket] = NEVER;
		}
		finally {
			this.lock.unlock();
		}
	}

	private Duration sweepInterval() {
		Duration sweep = this.options.sweepInterval();
		return (sweep.compareTo(renewInterval()) < 0) ? sweep : renewInterval();
	}

	private void maintainOwnership() {
		ensureSubscribed();
		long live = Math.max(1, this.store.heartbeat(this.instanceId, this.options.lockTtl().toMillis(), false));
		int target = (int) Math.min(this.buckets, (this.buckets + live - 1) / live);
		int[] mine = ownedBuckets();
		for (int i = mine.length - 1; i >= target; i--) {
			int bucket = mine[i];
			release(bucket);
		}
		int count = Math.min(mine.length, target);
		for (int i = 0; i < this.buckets && count < target && this.running; i++) {
			int bucket = (this.offset + i) % this.buckets;
			if (!isOwned(bucket) && this.store.tryLock(bucket, this.instanceId, this.options.lockTtl().toMillis())) {
				take(bucket);
				count++;
			}
		}
	}

	private boolean isOwned(int bucket) {
		this.lock.lock();
		try {
			return this.owned[bucket];
		}
		finally {
			this.lock.unlock();
		}
	}

	private void take(int bucket) {
		this.lock.lock();
		try {
			this.owned[bucket] = true;
			this.wakeAt[bucket] = NEVER;
			this.nextSweep = System.nanoTime(); // a new bucket gets a full sweep at once
		}
		finally {
			this.lock.unlock();
		}
		logger.debug("Instance {} now migrates bucket {}", this.instanceId, bucket);
	}

	private void release(int bucket) {
		forget(bucket);
		this.store.unlock(bucket, this.instanceId);
	}

	private void ensureSubscribed() {
		if (this.pubSub != null) {
			return;
		}
		StatefulRedisPubSubConnection<String, String> connection = this.store.scripts().connections().connectPubSub();
		connection.addListener(new RedisPubSubAdapter<>() {
			@Override
			public void message(String channel, String message) {
				onWakeMessage(message);
			}
		});
		this.store.scripts()
			.await(connection.async().subscribe(this.store.keys().wakeChannel()), "subscribe to wake-ups");
		this.pubSub = connection;
	}

	private void onWakeMessage(String message) {
		int colon = message.indexOf(':');
		try {
			int bucket = Integer.parseInt((colon > 0) ? message.substring(0, colon) : message);
			if (bucket >= 0 && bucket < this.buckets) {
				wake(bucket);
			}
		}
		catch (NumberFormatException ex) {
			logger.debug("Ignoring malformed wake-up '{}'", message);
		}
	}

	private Duration renewInterval() {
		return this.options.lockTtl().dividedBy(3);
	}

	private void backOffAll() {
		this.lock.lock();
		try {
			long later = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
			for (int b = 0; b < this.buckets; b++) {
				if (this.owned[b]) {
					this.wakeAt[b] = later;
				}
			}
			this.nextOwnershipCheck = later;
			this.nextSweep = later;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void awaitNextWakeUp() {
		this.lock.lock();
		try {
			long now = System.nanoTime();
			long until = (this.nextSweep - this.nextOwnershipCheck < 0) ? this.nextSweep : this.nextOwnershipCheck;
			for (int b = 0; b < this.buckets; b++) {
				if (this.owned[b] && this.wakeAt[b] - until < 0) {
					until = this.wakeAt[b];
				}
			}
			long wait = until - now;
			if (wait > 0 && this.running) {
				this.wakeUp.awaitNanos(wait);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.running = false;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Stops migrating, then releases every lock and leaves, so others take over at once.
	 */
	@Override
	public void close() {
		this.running = false;
		this.lock.lock();
		try {
			this.wakeUp.signalAll();
		}
		finally {
			this.lock.unlock();
		}
		if (this.thread.isAlive() && this.thread != Thread.currentThread()) {
			try {
				this.thread.join(this.options.commandTimeout().toMillis() + 1000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		try {
			for (int bucket : ownedBuckets()) {
				release(bucket);
			}
			this.store.heartbeat(this.instanceId, this.options.lockTtl().toMillis(), true);
		}
		catch (RuntimeException ex) {
			logger.info("Could not release bucket locks on close ({}); other instances take them over within {}",
					ex.getMessage(), this.options.lockTtl());
		}
		if (this.pubSub != null) {
			this.store.scripts().connections().close(this.pubSub);
		}
	}

}
