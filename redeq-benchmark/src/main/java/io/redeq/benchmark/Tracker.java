package io.redeq.benchmark;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

import io.redeq.Delivery;
import io.redeq.JobLifecycleListener;

/**
 * Counts deliveries per job id (ids are the numbers 0..n-1), completions (acknowledged in
 * Redis: the lifecycle listener runs after the complete script), and, when asked,
 * lateness = handler start on the Redis clock − due time, in microseconds.
 */
final class Tracker implements JobLifecycleListener {

	private final AtomicIntegerArray deliveries;

	private final AtomicInteger delivered = new AtomicInteger();

	private final AtomicInteger completed = new AtomicInteger();

	private final AtomicInteger unknownIds = new AtomicInteger();

	private final AtomicInteger early = new AtomicInteger();

	private final AtomicLong lastCompletedNanos = new AtomicLong();

	private final @Nullable Histogram lateness;

	private final @Nullable RedisClock clock;

	Tracker(int jobs, @Nullable RedisClock clock) {
		this.deliveries = new AtomicIntegerArray(Math.max(1, jobs));
		this.clock = clock;
		this.lateness = (clock != null) ? new ConcurrentHistogram(3_600_000_000L, 3) : null;
	}

	/** Called first thing in the handler. */
	void delivered(Delivery delivery) {
		if (this.clock != null) {
			long late = this.clock.nowMicros() - delivery.dueAt().toEpochMilli() * 1000;
			if (late < 0) {
				this.early.incrementAndGet();
				late = 0;
			}
			this.lateness.recordValue(Math.min(late, 3_600_000_000L));
		}
		int id;
		try {
			id = Integer.parseInt(delivery.id());
		}
		catch (NumberFormatException ex) {
			id = -1;
		}
		if (id < 0 || id >= this.deliveries.length()) {
			this.unknownIds.incrementAndGet();
		}
		else {
			this.deliveries.incrementAndGet(id);
		}
		this.delivered.incrementAndGet();
	}

	@Override
	public void onSuccess(Delivery delivery, Duration handlerDuration) {
		this.lastCompletedNanos.accumulateAndGet(System.nanoTime(), Math::max);
		this.completed.incrementAndGet();
	}

	int completed() {
		return this.completed.get();
	}

	int delivered() {
		return this.delivered.get();
	}

	long lastCompletedNanos() {
		return this.lastCompletedNanos.get();
	}

	int early() {
		return this.early.get();
	}

	@Nullable Histogram lateness() {
		return this.lateness;
	}

	/** Ids 0..expected-1 never delivered. */
	int missing(int expected) {
		int missing = 0;
		for (int i = 0; i < expected; i++) {
			if (this.deliveries.get(i) == 0) {
				missing++;
			}
		}
		return missing;
	}

	/** Deliveries beyond the first, plus deliveries of ids that were never scheduled. */
	int duplicates() {
		int dup = this.unknownIds.get();
		for (int i = 0; i < this.deliveries.length(); i++) {
			dup += Math.max(0, this.deliveries.get(i) - 1);
		}
		return dup;
	}

}
