package io.redeq.benchmark;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One system under test, opened on keys of its own: redeq or a peer. Every workload
 * drives each system through these calls only, so they all do the same work.
 */
interface QueueUnderTest extends AutoCloseable {

	/** One job in one call, the way an application schedules one job. */
	void schedule(BenchJob job);

	/**
	 * Whether {@link #scheduleAsync} is supported: a call that returns at once, so one
	 * thread keeps many schedules in flight.
	 */
	default boolean schedulesAsync() {
		return false;
	}

	/**
	 * One job in one call that returns at once; the future completes once it is stored.
	 */
	default CompletableFuture<?> scheduleAsync(BenchJob job) {
		throw new UnsupportedOperationException("no asynchronous schedule");
	}

	/** Many jobs in one call: the system's batch or pipeline. */
	void scheduleBatch(List<BenchJob> jobs);

	/**
	 * Starts consumers with {@code concurrency} handler threads; each handler reports to
	 * the tracker the system was opened with.
	 */
	void consume(int concurrency);

	/** Jobs stored and not yet handed to a handler (or, for redeq, not yet completed). */
	long pending();

	@Override
	void close();

}
