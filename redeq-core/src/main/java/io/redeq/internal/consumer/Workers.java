package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import io.redeq.internal.Validate;
import io.redeq.internal.redis.ClaimedJob;

/**
 * A subscription's worker threads and slots: which claimed jobs run, how many may, and
 * how they stop. A slot is taken when a job is claimed and given back when its handler
 * ends or times out; {@link #stop(Duration)} sorts what is left on close by whether a
 * thread still runs it.
 *
 * <p>
 * Slots number the concurrency plus the prefetch: a job claimed into a prefetch slot is
 * leased like any other and waits for one of the concurrency's turns to run. The prefetch
 * slots are only open while handlers are quick (their recent average under
 * {@link #QUICK_HANDLER}), and only as many as the handlers finish in about
 * {@link #PREFETCH_HORIZON} at their recent pace (never fewer than the concurrency, never
 * more than the prefetch): a prefetched job waits about that long for its turn, and a
 * slow listener never holds jobs another instance could run. Close takes waiting jobs
 * back at once ({@link #takeBackWaiting()}).
 *
 * <p>
 * One class because the slots, the turns of the concurrency, the prefetch window and the
 * stop all read and change the same counts under one lock: split, every claim and every
 * end of a handler would cross classes.
 */
final class Workers {

	/**
	 * Handlers whose recent runs average below this open the prefetch slots.
	 */
	static final Duration QUICK_HANDLER = Duration.ofMillis(50);

	private static final long QUICK_HANDLER_NANOS = QUICK_HANDLER.toNanos();

	/**
	 * The work the open prefetch slots hold: as many jobs as the handlers finish in this
	 * long at their recent pace. Large claims fill them (fewer round trips per job while
	 * a listener drains a backlog of quick jobs), yet a prefetched job waits about this
	 * long at most for a turn.
	 */
	static final Duration PREFETCH_HORIZON = Duration.ofMillis(10);

	private static final long PREFETCH_HORIZON_NANOS = PREFETCH_HORIZON.toNanos();

	private final int concurrency;

	/** Claimed jobs held at once: running, and waiting for a turn (the prefetch). */
	private final Semaphore slots;

	/**
	 * Turns not taken: a job runs only in one of the concurrency's turns. Guarded by
	 * {@code this}, with {@link #waiting}.
	 */
	private int freeTurns;

	/** Prefetched jobs waiting for a turn, in the order they were claimed. */
	private final Deque<Turn> waiting = new ArrayDeque<>();

	private final int prefetch;

	/**
	 * Prefetch slots held back while handlers are not known to be quick; guarded by
	 * {@code this}.
	 */
	private int heldBack;

	/** Recent average handler time, -1 before the first; guarded by {@code this}. */
	private long averageNanos = -1;

	private final ExecutorService threads;

	private final LongSupplier nanoClock;

	private final Set<RunningJob> running = ConcurrentHashMap.newKeySet();

	private final ReentrantLock idleLock = new ReentrantLock();

	private final Condition idle = this.idleLock.newCondition();

	Workers(String topic, int concurrency, int prefetch) {
		this(topic, concurrency, prefetch, System::nanoTime);
	}

	/**
	 * Workers whose handler times (which open and close the prefetch) are read from
	 * {@code nanoClock}.
	 * @param nanoClock {@code System::nanoTime}, or a fake in tests
	 */
	Workers(String topic, int concurrency, int prefetch, LongSupplier nanoClock) {
		this.nanoClock = nanoClock;
		this.concurrency = concurrency;
		this.prefetch = Validate.atLeast("prefetch", prefetch, 0);
		this.slots = new Semaphore(concurrency);
		this.freeTurns = concurrency;
		this.heldBack = this.prefetch;
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

	/**
	 * Whether jobs handed over well ahead of their due time may wait in {@code free} of
	 * the slots: the handlers are quick (their pace opened prefetch slots, which turn
	 * over within milliseconds), and those free slots are at least half the open ones, so
	 * jobs waiting for their due time never leave due ones without a slot for long.
	 */
	synchronized boolean roomForEarlyJobs(int free) {
		int open = this.concurrency + this.prefetch - this.heldBack;
		return open > this.concurrency && 2 * free >= open;
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
	 * Takes back every job no worker began (waiting for a turn, or not yet on a thread),
	 * for close to give back to READY at once; a worker that reaches one later finds it
	 * settled and leaves it.
	 */
	List<ClaimedJob> takeBackWaiting() {
		List<Turn> queued;
		synchronized (this) {
			queued = new ArrayList<>(this.waiting);
			this.waiting.clear();
		}
		List<ClaimedJob> waiting = new ArrayList<>();
		for (Turn turn : queued) {
			takeBack(turn.runningJob, waiting);
		}
		for (RunningJob runningJob : this.running) {
			takeBack(runningJob, waiting); // on a thread, not begun yet
		}
		return waiting;
	}

	private void takeBack(RunningJob runningJob, List<ClaimedJob> takenBack) {
		if (!runningJob.hasBegun() && runningJob.settle()) {
			takenBack.add(runningJob.job);
			finished(runningJob);
		}
	}

	/**
	 * Runs {@code work} for a claimed job on a worker thread; false if the workers are
	 * shut down.
	 */
	boolean start(ClaimedJob job, Consumer<RunningJob> work) {
		if (this.threads.isShutdown()) {
			return false;
		}
		Turn turn = new Turn(new RunningJob(job), work);
		this.running.add(turn.runningJob);
		return takeTurn(turn);
	}

	/**
	 * As {@link #start(ClaimedJob, Consumer)}, for a job handed over before its due time:
	 * it holds its slot (and is leased) meanwhile, and asks for a turn once
	 * {@code inNanos} passed, on {@code timers}. Close takes it back while it waits, like
	 * a prefetched job; if the workers were shut down when it was due, {@code refused}
	 * gets it back.
	 */
	boolean start(ClaimedJob job, Consumer<RunningJob> work, long inNanos, ScheduledExecutorService timers,
			Consumer<ClaimedJob> refused) {
		if (inNanos <= 0) {
			return start(job, work);
		}
		if (this.threads.isShutdown()) {
			return false;
		}
		Turn turn = new Turn(new RunningJob(job), work);
		this.running.add(turn.runningJob);
		try {
			timers.schedule(() -> {
				// Not taken back by close meanwhile, but shut down since: back to READY.
				if (this.running.contains(turn.runningJob) && !takeTurn(turn) && turn.runningJob.settle()) {
					refused.accept(job);
				}
			}, inNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			this.running.remove(turn.runningJob);
			return false;
		}
		return true;
	}

	/** A turn for a job in {@link #running}, or a place in the queue for one. */
	private boolean takeTurn(Turn turn) {
		synchronized (this) {
			if (this.freeTurns == 0) {
				this.waiting.add(turn); // prefetched: runs when a turn comes back
				return true;
			}
			this.freeTurns--;
		}
		if (!run(turn)) {
			this.running.remove(turn.runningJob);
			turnBack();
			return false;
		}
		return true;
	}

	/**
	 * Runs a job in the turn it was given, on a worker thread; false if the workers are
	 * shut down. The turn is the job's until {@link #finished(RunningJob)} (a handler
	 * past its timeout gives its turn back while its thread may still run).
	 */
	private boolean run(Turn turn) {
		turn.runningJob.holdTurn(this.nanoClock.getAsLong());
		try {
			this.threads.execute(() -> turn.work.accept(turn.runningJob));
			return true;
		}
		catch (RejectedExecutionException ex) {
			turn.runningJob.releaseTurn();
			return false;
		}
	}

	/**
	 * A turn came back: the first waiting job still held takes it. One whose lease was
	 * lost while it waited is dropped (the claim is gone, another instance may run it).
	 */
	private void turnBack() {
		while (true) {
			Turn next;
			synchronized (this) {
				next = this.waiting.poll();
				if (next == null) {
					this.freeTurns++;
					return;
				}
			}
			if (!this.running.contains(next.runningJob)) {
				continue; // taken back by close
			}
			if (next.runningJob.leaseLost() && next.runningJob.settle()) {
				finished(next.runningJob);
				continue;
			}
			if (run(next)) {
				return;
			}
			this.running.remove(next.runningJob); // shut down: close deals with it
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
			if (runningJob.releaseTurn()) {
				turnBack();
			}
			this.slots.release();
			if (runningJob.hasBegun()) {
				adjustPrefetch(this.nanoClock.getAsLong() - runningJob.turnHeldSince());
			}
			this.idleLock.lock();
			try {
				this.idle.signalAll();
			}
			finally {
				this.idleLock.unlock();
			}
		}
	}

	/**
	 * Opens as many prefetch slots as the handlers' recent pace calls for and closes the
	 * others (as they come back).
	 */
	private synchronized void adjustPrefetch(long tookNanos) {
		this.averageNanos = (this.averageNanos < 0) ? tookNanos
				: this.averageNanos + (tookNanos - this.averageNanos) / 4;
		int heldBackNow = this.prefetch - openPrefetch(this.averageNanos);
		if (this.heldBack > heldBackNow) {
			this.slots.release(this.heldBack - heldBackNow);
			this.heldBack = heldBackNow;
		}
		while (this.heldBack < heldBackNow && this.slots.tryAcquire()) {
			this.heldBack++;
		}
	}

	/**
	 * The prefetch slots to open for handlers averaging {@code averageNanos}: none while
	 * they are slow, else what they finish in {@link #PREFETCH_HORIZON}, at least the
	 * concurrency and at most the prefetch.
	 */
	private int openPrefetch(long averageNanos) {
		if (averageNanos >= QUICK_HANDLER_NANOS) {
			return 0;
		}
		long byPace = this.concurrency * PREFETCH_HORIZON_NANOS / Math.max(1, averageNanos);
		return (int) Math.min(this.prefetch, Math.max(this.concurrency, byPace));
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

	/** A claimed job and what runs it, waiting for or holding a turn. */
	private record Turn(RunningJob runningJob, Consumer<RunningJob> work) {
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
