package io.redeq.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.redeq.redis.ClaimedJob;

/**
 * A subscription's worker threads and slots: which claimed jobs run, how many may, and
 * how they stop. A slot is taken when a job starts and given back when its handler ends
 * or times out; {@link #stop(Duration)} sorts what is left on close by whether a thread
 * still runs it.
 */
final class Workers {

	private final int concurrency;

	private final Semaphore slots;

	private final ExecutorService threads;

	private final Set<RunningJob> running = ConcurrentHashMap.newKeySet();

	private final ReentrantLock idleLock = new ReentrantLock();

	private final Condition idle = this.idleLock.newCondition();

	Workers(String topic, int concurrency) {
		this.concurrency = concurrency;
		this.slots = new Semaphore(concurrency);
		AtomicInteger workerNumber = new AtomicInteger();
		this.threads = Executors.newCachedThreadPool((task) -> {
			Thread thread = new Thread(task, "redeq-" + topic + "-" + workerNumber.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

	/** Waits for a free slot, then takes every free one for a fetch round. */
	FreeSlots takeFreeSlots() throws InterruptedException {
		return FreeSlots.take(this.slots);
	}

	/** Takes every free slot without waiting: how many, 0 if none. */
	int takeFreeSlotsNow() {
		return this.slots.drainPermits();
	}

	/** Gives back slots taken with {@link #takeFreeSlotsNow()} that no job took. */
	void giveBackSlots(int count) {
		if (count > 0) {
			this.slots.release(count);
		}
	}

	/** Wakes a fetcher waiting for a free slot, on close. */
	void wakeFetcher() {
		this.slots.release(this.concurrency);
	}

	/**
	 * Runs {@code work} for a claimed job on a worker thread; false if the workers are
	 * shut down.
	 */
	boolean start(ClaimedJob job, Consumer<RunningJob> work) {
		RunningJob runningJob = new RunningJob(job);
		this.running.add(runningJob);
		try {
			this.threads.execute(() -> work.accept(runningJob));
			return true;
		}
		catch (RejectedExecutionException ex) {
			this.running.remove(runningJob);
			return false;
		}
	}

	/** Runs a short task of the subscription (an outcome to store) on a worker thread. */
	void execute(Runnable task) {
		this.threads.execute(task);
	}

	/**
	 * The job's slot comes back: its handler ended, or timed out (its thread may still
	 * run).
	 */
	void finished(RunningJob runningJob) {
		ScheduledFuture<?> timeout = runningJob.timeout;
		if (timeout != null) {
			timeout.cancel(false);
		}
		if (this.running.remove(runningJob)) {
			this.slots.release();
			this.idleLock.lock();
			try {
				this.idle.signalAll();
			}
			finally {
				this.idleLock.unlock();
			}
		}
	}

	/** Jobs holding a slot, for lease renewal. */
	Collection<RunningJob> running() {
		return Collections.unmodifiableSet(this.running);
	}

	/** Waits until every running job finished, up to {@code deadlineNanos}. */
	void awaitIdle(long deadlineNanos) {
		this.idleLock.lock();
		try {
			while (!this.running.isEmpty()) {
				long left = deadlineNanos - System.nanoTime();
				if (left <= 0) {
					return;
				}
				this.idle.awaitNanos(left);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.idleLock.unlock();
		}
	}

	/**
	 * Takes every unfinished job from its worker, interrupts the handlers and waits up to
	 * {@code grace} for their threads to end, then tells which jobs no thread runs any
	 * more (they may go back to READY) and which a handler that ignored its interrupt
	 * still runs (they must not).
	 */
	Unfinished stop(Duration grace) {
		List<RunningJob> taken = new ArrayList<>();
		for (RunningJob runningJob : this.running) {
			if (runningJob.settle()) {
				runningJob.interrupt();
				taken.add(runningJob);
			}
		}
		long deadline = System.nanoTime() + grace.toNanos();
		Unfinished unfinished = new Unfinished(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
		for (RunningJob runningJob : taken) {
			if (!runningJob.hasBegun()) {
				unfinished.neverStarted().add(runningJob.job);
			}
			else if (awaitEnd(runningJob, deadline)) {
				unfinished.interrupted().add(runningJob.job);
			}
			else {
				unfinished.stillRunning().add(runningJob.job);
			}
		}
		return unfinished;
	}

	private static boolean awaitEnd(RunningJob runningJob, long deadline) {
		try {
			return runningJob.awaitEnd(deadline);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/** Interrupts whatever still runs and refuses new work. */
	void shutdown() {
		this.threads.shutdownNow();
	}

	/**
	 * The jobs close took from their workers.
	 *
	 * @param neverStarted claimed, but no handler ran: back to READY with the attempt
	 * refunded
	 * @param interrupted the handler ended after its interrupt: back to READY
	 * @param stillRunning a handler still runs them: they stay IN_FLIGHT until their
	 * leases expire
	 */
	record Unfinished(List<ClaimedJob> neverStarted, List<ClaimedJob> interrupted, List<ClaimedJob> stillRunning) {
	}

}
