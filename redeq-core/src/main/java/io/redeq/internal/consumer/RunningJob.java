package io.redeq.internal.consumer;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import io.redeq.internal.redis.ClaimedJob;

/**
 * A claimed job handed to a worker. Exactly one party settles its outcome (the worker
 * when the handler returns or throws, the timeout when it runs too long, shutdown when it
 * gives the job back): whoever wins {@link #settle()}.
 *
 * <p>
 * Settling and running are separate facts: a handler that ignores its interrupt keeps its
 * thread after the timeout or shutdown settled the job. Only when no thread runs it may
 * the job go back to READY, which is why the worker's thread is tracked here, under the
 * same lock as the settlement: a job settled before its worker began never begins.
 */
final class RunningJob {

	final ClaimedJob job;

	volatile @Nullable ScheduledFuture<?> timeout;

	private @Nullable Thread thread;

	private boolean begun;

	private long beganNanos;

	private boolean settled;

	private boolean leaseLost;

	private final AtomicBoolean turn = new AtomicBoolean();

	private volatile long turnHeldSince;

	RunningJob(ClaimedJob job) {
		this.job = job;
	}

	/**
	 * The worker's thread takes the job; false if it was settled first (given back on
	 * close), and then the handler must not run.
	 */
	synchronized boolean begin(Thread worker) {
		if (this.settled) {
			return false;
		}
		this.begun = true;
		this.beganNanos = System.nanoTime();
		this.thread = worker;
		return true;
	}

	/** When a worker began it ({@link System#nanoTime()}); only once it has begun. */
	synchronized long beganNanos() {
		return this.beganNanos;
	}

	/**
	 * The job's worker got one of the subscription's turns to run a handler, at
	 * {@code nanos} on its workers' clock.
	 */
	void holdTurn(long nanos) {
		this.turnHeldSince = nanos;
		this.turn.set(true);
	}

	/**
	 * When it got its turn, on its workers' clock: how long handlers take is read from
	 * it.
	 */
	long turnHeldSince() {
		return this.turnHeldSince;
	}

	/** Whether it held a turn, which is given back now; true for one caller only. */
	boolean releaseTurn() {
		return this.turn.compareAndSet(true, false);
	}

	/** The worker's thread is done with the job (the handler returned or threw). */
	synchronized void end() {
		this.thread = null;
		notifyAll();
	}

	/** Takes the right to decide this job's outcome; true only for the first caller. */
	synchronized boolean settle() {
		if (this.settled) {
			return false;
		}
		this.settled = true;
		return true;
	}

	synchronized boolean isSettled() {
		return this.settled;
	}

	/**
	 * Redis refused to renew the lease: the claim is gone. True only the first time, so
	 * the loss is reported once and no longer renewed.
	 */
	synchronized boolean markLeaseLost() {
		if (this.leaseLost) {
			return false;
		}
		this.leaseLost = true;
		return true;
	}

	synchronized boolean leaseLost() {
		return this.leaseLost;
	}

	/**
	 * Whether a worker ever began it; a job that never began can be given back as new.
	 */
	synchronized boolean hasBegun() {
		return this.begun;
	}

	/**
	 * Interrupts the thread running the job, if any; under the lock, so a pooled thread
	 * that already moved on to another job is never hit.
	 */
	synchronized void interrupt() {
		if (this.thread != null) {
			this.thread.interrupt();
		}
	}

	/**
	 * Waits until no thread runs the job, up to {@code deadlineNanos}
	 * ({@link System#nanoTime()}); true if none does.
	 */
	synchronized boolean awaitEnd(long deadlineNanos) throws InterruptedException {
		while (this.thread != null) {
			long left = deadlineNanos - System.nanoTime();
			if (left <= 0) {
				return false;
			}
			TimeUnit.NANOSECONDS.timedWait(this, left);
		}
		return true;
	}

}
