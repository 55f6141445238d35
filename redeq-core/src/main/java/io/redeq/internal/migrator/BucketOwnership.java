package io.redeq.internal.migrator;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * The migrator's plan: which buckets this instance owns, when each is next due a migrate
 * call, and when the next ownership check (heartbeat, fair share) and the next sweep
 * (which renews the bucket locks) are due. It holds no Redis state (the locks themselves
 * live in Redis and the migrator takes and loses them there); times are nanos of an
 * injected clock, so the plan can be tested without a server or real waiting.
 *
 * <p>
 * The migrator's thread takes and forgets buckets, plans and waits; any thread may wake
 * an owned bucket (a job scheduled here, a hint from the wake channel). One lock guards
 * everything, and the wait is planned and started under it, so a wake-up that arrives
 * while the next wait is being planned is never lost: either the plan sees it, or the
 * wait is already under way and the signal ends it.
 *
 * <p>
 * A wake-up that arrives while the bucket's migrate call is in flight ({@link #sent},
 * {@link #answered}) is kept and applied after the plan the reply makes, since the reply
 * may have been written before the job that asked for it was scheduled.
 */
final class BucketOwnership {

	/** Wake time of a bucket with nothing due: only a hint or the sweep wakes it. */
	static final long NEVER = Long.MAX_VALUE;

	private final int buckets;

	private final int offset;

	private final Duration checkInterval;

	private final Duration sweepInterval;

	private final LongSupplier nanoClock;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition wakeUp = this.lock.newCondition();

	/** Guarded by {@link #lock}, as is every field below. */
	private final boolean[] owned;

	/** Clock time at which each owned bucket is due a migrate call. */
	private final long[] wakeAt;

	/**
	 * For a bucket whose call is planned ahead of its next job's due time (an early
	 * hand-off), that due time on the same clock; {@link #NEVER} otherwise.
	 */
	private final long[] earlyFor;

	/** Buckets whose migrate call was sent and whose reply was not dealt with yet. */
	private final boolean[] inFlight;

	/** Buckets woken while their call was in flight: due again once it is answered. */
	private final boolean[] wokenInFlight;

	private long nextOwnershipCheck;

	private long nextSweep;

	/**
	 * A plan with no bucket, whose ownership check and sweep are due at once.
	 * @param buckets how many buckets there are
	 * @param offset the first bucket this instance tries to take, so that instances
	 * starting together do not all race for bucket 0
	 * @param lockTtl the ttl of the bucket locks and of the heartbeat; both are renewed
	 * at a third of it, so two renewals can fail before one lapses
	 * @param sweepInterval how often every owned bucket is looked at; at most a third of
	 * {@code lockTtl}, since the sweep is what renews the locks
	 * @param nanoClock {@code System::nanoTime}, or a fake in tests
	 */
	BucketOwnership(int buckets, int offset, Duration lockTtl, Duration sweepInterval, LongSupplier nanoClock) {
		this.buckets = buckets;
		this.offset = offset;
		this.checkInterval = lockTtl.dividedBy(3);
		this.sweepInterval = (sweepInterval.compareTo(this.checkInterval) < 0) ? sweepInterval : this.checkInterval;
		this.nanoClock = nanoClock;
		this.owned = new boolean[buckets];
		this.wakeAt = new long[buckets];
		Arrays.fill(this.wakeAt, NEVER);
		this.earlyFor = new long[buckets];
		Arrays.fill(this.earlyFor, NEVER);
		this.inFlight = new boolean[buckets];
		this.wokenInFlight = new boolean[buckets];
		this.nextOwnershipCheck = nanoClock.getAsLong();
		this.nextSweep = this.nextOwnershipCheck;
	}

	/** The owned buckets, in ascending order. */
	int[] owned() {
		return locked(() -> IntStream.range(0, this.buckets).filter((b) -> this.owned[b]).toArray());
	}

	/**
	 * How many buckets each of {@code liveInstances} instances should own: rounded up, so
	 * that every bucket finds an owner while instances come and go.
	 */
	int fairShare(long liveInstances) {
		long live = Math.max(1, liveInstances);
		return (int) Math.min(this.buckets, (this.buckets + live - 1) / live);
	}

	/** Owned buckets beyond {@code share}, highest first: the ones to give back. */
	int[] beyond(int share) {
		int[] mine = owned();
		return IntStream.range(share, mine.length).map((i) -> mine[mine.length - 1 - (i - share)]).toArray();
	}

	/** Buckets not owned, in the order this instance tries to take them. */
	int[] candidates() {
		return locked(() -> IntStream.range(0, this.buckets)
			.map((i) -> (this.offset + i) % this.buckets)
			.filter((b) -> !this.owned[b])
			.toArray());
	}

	/**
	 * Records a bucket whose lock this instance just took. Nothing is planned for it, but
	 * a sweep is due at once: what the previous owner left is found there.
	 */
	void take(int bucket) {
		change(() -> {
			this.owned[bucket] = true;
			this.wakeAt[bucket] = NEVER;
			this.earlyFor[bucket] = NEVER;
			this.wokenInFlight[bucket] = false;
			this.nextSweep = now();
		});
	}

	/** Stops planning for a bucket (its lock was lost or released). */
	void forget(int bucket) {
		change(() -> {
			this.owned[bucket] = false;
			this.wakeAt[bucket] = NEVER;
			this.earlyFor[bucket] = NEVER;
			this.wokenInFlight[bucket] = false;
		});
	}

	/**
	 * Makes an owned bucket due now and ends a wait in progress; from any thread.
	 * @return whether this instance owns the bucket (if not, its owner must be told)
	 */
	boolean wakeNow(int bucket) {
		return locked(() -> {
			if (!this.owned[bucket]) {
				return false;
			}
			this.wakeAt[bucket] = now();
			this.earlyFor[bucket] = NEVER;
			this.wokenInFlight[bucket] = this.inFlight[bucket];
			this.wakeUp.signal();
			return true;
		});
	}

	/**
	 * Plans an owned bucket's next migrate call in {@code millis} (0 for at once). The
	 * caller passes a difference of two Redis times, so no local clock reading is ever
	 * compared with Redis's.
	 */
	void wakeIn(int bucket, long millis) {
		planWake(bucket, now() + millis * 1_000_000L);
	}

	/** As {@link #wakeIn}, to the nanosecond. */
	void wakeInNanos(int bucket, long nanos) {
		planWake(bucket, now() + nanos);
	}

	/** Plans nothing for an owned bucket: only a hint or the sweep wakes it. */
	void idle(int bucket) {
		planWake(bucket, NEVER);
	}

	/**
	 * Plans an owned bucket's next call {@code leadNanos} before its next job falls due
	 * in {@code nanos}, for a hand-off ahead of the due time; at the due time when that
	 * is too close.
	 */
	void wakeAhead(int bucket, long nanos, long leadNanos) {
		long due = now() + nanos;
		if (nanos <= leadNanos) {
			planWake(bucket, due);
			return;
		}
		change(() -> {
			if (this.owned[bucket]) {
				this.wakeAt[bucket] = due - leadNanos;
				this.earlyFor[bucket] = due;
			}
		});
	}

	/**
	 * What the sweep saw: an owned bucket's next job falls due in {@code nanos}. Brings
	 * the bucket's next call forward to {@code leadNanos} before that time (as
	 * {@link #wakeAhead} plans it; 0 for at the due time) when it was planned later or
	 * not at all, a wake-up having been missed; an earlier plan stands. A sweep that
	 * planned every bucket's call at the due time (as it used to) turned each call
	 * planned ahead for an early hand-off into a call at the due time, and the job it met
	 * started a round trip late.
	 */
	void sweptHead(int bucket, long nanos, long leadNanos) {
		long due = now() + nanos;
		boolean ahead = leadNanos > 0 && nanos > leadNanos;
		long at = ahead ? due - leadNanos : due;
		change(() -> {
			if (this.owned[bucket] && (this.wakeAt[bucket] == NEVER || at - this.wakeAt[bucket] < 0)) {
				this.wakeAt[bucket] = at;
				this.earlyFor[bucket] = ahead ? due : NEVER;
			}
		});
	}

	/**
	 * The due time (on this plan's clock) of the next job of a bucket whose call was
	 * planned ahead of it, {@link #NEVER} if the call was not planned that way.
	 */
	long earlyFor(int bucket) {
		return locked(() -> this.earlyFor[bucket]);
	}

	/**
	 * Plans an owned bucket's next call at {@code at} on this plan's clock (the time
	 * {@link #earlyFor} gave, when a call planned ahead is put back to the due time).
	 */
	void planWake(int bucket, long at) {
		change(() -> {
			if (this.owned[bucket]) {
				this.wakeAt[bucket] = at;
				this.earlyFor[bucket] = NEVER;
			}
		});
	}

	/** Whether an owned bucket's planned migrate call is due. */
	boolean isDue(int bucket) {
		long now = now();
		return locked(() -> this.owned[bucket] && this.wakeAt[bucket] != NEVER && now - this.wakeAt[bucket] >= 0);
	}

	/**
	 * A migrate call of the bucket was sent: a wake-up from now until it is answered is
	 * kept.
	 */
	void sent(int bucket) {
		change(() -> {
			this.inFlight[bucket] = true;
			this.wokenInFlight[bucket] = false;
		});
	}

	/**
	 * The reply to the bucket's call was dealt with (its next call planned from it): due
	 * again as planned, or at once if it was woken meanwhile.
	 */
	void answered(int bucket) {
		change(() -> {
			this.inFlight[bucket] = false;
			if (this.wokenInFlight[bucket] && this.owned[bucket]) {
				this.wakeAt[bucket] = now();
				this.earlyFor[bucket] = NEVER;
			}
			this.wokenInFlight[bucket] = false;
		});
	}

	boolean ownershipCheckDue() {
		long now = now();
		return locked(() -> now - this.nextOwnershipCheck >= 0);
	}

	/**
	 * Plans the next ownership check a third of the lock ttl from now, which keeps the
	 * heartbeat (same ttl) alive.
	 */
	void ownershipChecked() {
		change(() -> this.nextOwnershipCheck = now() + this.checkInterval.toNanos());
	}

	boolean sweepDue() {
		long now = now();
		return locked(() -> now - this.nextSweep >= 0);
	}

	void swept() {
		change(() -> this.nextSweep = now() + this.sweepInterval.toNanos());
	}

	/**
	 * Puts everything off by {@code delay}: after a Redis failure, the next try of any
	 * kind waits that long instead of hammering a server that is down.
	 */
	void backOff(Duration delay) {
		change(() -> {
			long later = now() + delay.toNanos();
			for (int b = 0; b < this.buckets; b++) {
				if (this.owned[b]) {
					this.wakeAt[b] = later;
					this.earlyFor[b] = NEVER;
				}
			}
			this.nextOwnershipCheck = later;
			this.nextSweep = later;
		});
	}

	/**
	 * Nanos until the earliest of the next ownership check, the next sweep and every
	 * owned bucket's planned migrate call; 0 or less when one is due.
	 */
	long nanosToNextWakeUp() {
		return locked(() -> {
			long until = (this.nextSweep - this.nextOwnershipCheck < 0) ? this.nextSweep : this.nextOwnershipCheck;
			for (int b = 0; b < this.buckets; b++) {
				if (this.owned[b] && this.wakeAt[b] != NEVER && this.wakeAt[b] - until < 0) {
					until = this.wakeAt[b];
				}
			}
			return until - now();
		});
	}

	/**
	 * Waits until {@link #nanosToNextWakeUp() the next wake-up}, a {@link #wakeNow} or a
	 * {@link #wakeAll}; returns at once when something is due or {@code running} is
	 * false.
	 */
	void awaitNextWakeUp(BooleanSupplier running) throws InterruptedException {
		this.lock.lock();
		try {
			long wait = nanosToNextWakeUp();
			if (wait > 0 && running.getAsBoolean()) {
				this.wakeUp.awaitNanos(wait);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Ends a wait in progress, for a shutdown. */
	void wakeAll() {
		change(this.wakeUp::signalAll);
	}

	private <T> T locked(Supplier<T> action) {
		this.lock.lock();
		try {
			return action.get();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void change(Runnable change) {
		this.lock.lock();
		try {
			change.run();
		}
		finally {
			this.lock.unlock();
		}
	}

	private long now() {
		return this.nanoClock.getAsLong();
	}

}
