package io.redeq.consumer;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import io.redeq.redis.ClaimedJob;

/**
 * A claimed job while a worker runs it. Exactly one party settles its outcome (the worker
 * when the handler returns or throws, the timeout when it runs too long, shutdown when it
 * gives the job back): whoever wins {@link #settle()}.
 */
final class RunningJob {

	final ClaimedJob job;

	final long startedNanos = System.nanoTime();

	volatile @Nullable Thread thread;

	volatile @Nullable ScheduledFuture<?> timeout;

	private final AtomicBoolean settled = new AtomicBoolean();

	RunningJob(ClaimedJob job) {
		this.job = job;
	}

	/** Takes the right to decide this job's outcome; true only for the first caller. */
	boolean settle() {
		return this.settled.compareAndSet(false, true);
	}

	boolean isSettled() {
		return this.settled.get();
	}

}
