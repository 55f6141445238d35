package io.redeq.benchmark;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.jspecify.annotations.Nullable;

/**
 * Counts handler starts per job (by the index in its {@link BenchJob#id}), completions,
 * and, when given a clock, lateness = handler start on the Redis clock − the due time the
 * producer gave the job, in microseconds. The same for every system under test; each says
 * when a job is complete (redeq: its completion is acknowledged in Redis; the peers,
 * which have no acks: the handler returned).
 */
final class Tracker {

	private static final long MAX_LATENESS_MICROS = 3_600_000_000L;

	private final AtomicIntegerArray deliveries;

	private final @Nullable AtomicLongArray dueMillis;

	private final AtomicInteger completed = new AtomicInteger();

	private final AtomicInteger unknownIds = new AtomicInteger();

	private final AtomicInteger early = new AtomicInteger();

	private final AtomicLong lastCompletedNanos = new AtomicLong();

	/**
	 * Handlers record here; a Recorder, because handlers still running after a workload's
	 * time limit would otherwise write into a histogram while it is read.
	 */
	private final @Nullable Recorder lateness;

	private final Histogram latenessSoFar = new Histogram(MAX_LATENESS_MICROS, 3);

	private final @Nullable RedisClock clock;

	Tracker(int jobs, @Nullable RedisClock clock) {
		this.deliveries = new AtomicIntegerArray(Math.max(1, jobs));
		this.clock = clock;
		this.dueMillis = (clock != null) ? new AtomicLongArray(Math.max(1, jobs)) : null;
		this.lateness = (clock != null) ? new Recorder(MAX_LATENESS_MICROS, 3) : null;
	}

	/** Called by the producer before it schedules the job. */
	void due(int index, long dueAtMillis) {
		if (this.dueMillis != null && index >= 0 && index < this.dueMillis.length()) {
			this.dueMillis.set(index, dueAtMillis);
		}
	}

	/** Called first thing in the handler. */
	void started(String id) {
		int index = BenchJob.index(id);
		if (index < 0 || index >= this.deliveries.length()) {
			this.unknownIds.incrementAndGet();
			return;
		}
		if (this.clock != null && this.lateness != null && this.dueMillis != null) {
			long late = this.clock.nowMicros() - this.dueMillis.get(index) * 1000;
			if (late < 0) {
				this.early.incrementAndGet();
				late = 0;
			}
			this.lateness.recordValue(Math.min(late, MAX_LATENESS_MICROS));
		}
		this.deliveries.incrementAndGet(index);
	}

	/** Called when the system counts the job as done. */
	void finished() {
		this.lastCompletedNanos.accumulateAndGet(System.nanoTime(), Math::max);
		this.completed.incrementAndGet();
	}

	int completed() {
		return this.completed.get();
	}

	long lastCompletedNanos() {
		return this.lastCompletedNanos.get();
	}

	int early() {
		return this.early.get();
	}

	/**
	 * Lateness recorded so far, in microseconds: a copy, safe to read while handlers go
	 * on.
	 */
	synchronized Histogram lateness() {
		if (this.lateness != null) {
			this.latenessSoFar.add(this.lateness.getIntervalHistogram());
		}
		return this.latenessSoFar.copy();
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
