package io.redeq.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import io.redeq.Delivery;
import io.redeq.JobHandler;
import io.redeq.RedeqOptions;
import io.redeq.Subscription;
import io.redeq.codec.PayloadCodec;
import io.redeq.internal.JobEvents;
import io.redeq.internal.LogOnce;
import io.redeq.redis.ClaimResult;
import io.redeq.redis.ClaimedJob;
import io.redeq.redis.RedisJobStore;

/**
 * A subscription: one fetcher thread claims READY jobs of a topic only into free worker
 * slots (no local buffer, so nothing waits in memory when the instance dies), workers run
 * the handler under a lease that is renewed every third of its length, and each outcome
 * is one script.
 *
 * <p>
 * An idle fetcher waits on Redis for a wake-up signal ({@link WorkSignals}); a handler
 * running past its timeout is interrupted and its slot given back; {@link #close()} stops
 * fetching at once, lets running handlers finish within the shutdown timeout and hands
 * every unfinished job back to READY.
 */
public final class TopicConsumer implements Subscription {

	private static final Logger logger = LoggerFactory.getLogger(TopicConsumer.class);

	private final ConsumerSettings settings;

	private final JobHandler<Object> handler;

	private final RedisJobStore store;

	private final PayloadCodec codec;

	private final RedeqOptions options;

	private final JobOutcomes outcomes;

	private final JobEvents events;

	private final ScheduledExecutorService timers;

	private final Runnable onClosed;

	private final WorkSignals signals;

	private final Semaphore slots;

	private final ExecutorService workers;

	private final Set<RunningJob> running = ConcurrentHashMap.newKeySet();

	private final ReentrantLock idleLock = new ReentrantLock();

	private final Condition idle = this.idleLock.newCondition();

	private final Thread fetcher;

	private final String tokenPrefix;

	private final AtomicLong tokens = new AtomicLong();

	private final AtomicBoolean open = new AtomicBoolean(true);

	private final LogOnce fetchFailures = new LogOnce(logger);

	private final LogOnce outcomeFailures = new LogOnce(logger);

	private volatile boolean fetching = true;

	private final LeaseKeeper leases;

	public TopicConsumer(ConsumerSettings settings, JobHandler<Object> handler, ConsumerContext context,
			Runnable onClosed) {
		this.settings = settings;
		this.handler = handler;
		this.store = context.store();
		this.codec = context.codec();
		this.options = context.options();
		this.events = context.events();
		this.timers = context.timers();
		this.onClosed = onClosed;
		this.outcomes = new JobOutcomes(this.store, settings, context.listeners(), this.events, context.wakeUps());
		this.signals = new WorkSignals(this.store, this.options, settings.topic());
		this.slots = new Semaphore(settings.concurrency());
		AtomicInteger workerNumber = new AtomicInteger();
		this.workers = Executors.newCachedThreadPool((task) -> {
			Thread thread = new Thread(task, "redeq-" + settings.topic() + "-" + workerNumber.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.tokenPrefix = context.instanceId() + ":";
		this.leases = new LeaseKeeper(this.store, settings.lease(), this.running);
		this.fetcher = new Thread(this::fetchLoop, "redeq-fetch-" + settings.topic());
		this.fetcher.setDaemon(true);
	}

	public void start() {
		this.leases.start(this.timers);
		this.fetcher.start();
	}

	@Override
	public String topic() {
		return this.settings.topic();
	}

	@Override
	public boolean isRunning() {
		return this.fetching;
	}

	/** Handlers running right now. */
	public int activeHandlers() {
		return this.running.size();
	}

	public ConsumerSettings settings() {
		return this.settings;
	}

	// ---- fetching
	// ------------------------------------------------------------------------

	private void fetchLoop() {
		while (this.fetching) {
			try {
				FreeSlots free = FreeSlots.take(this.slots);
				try {
					fetchInto(free);
				}
				finally {
					// Only the slots no job took: a claim that failed after others
					// started
					// jobs must not hand back the slots those jobs still hold.
					free.releaseUnused();
				}
				if (!free.anyHandedOver() && this.fetching) {
					this.signals.awaitWork();
				}
				this.fetchFailures.recovered("Consumer of topic '{}' fetches again", this.settings.topic());
			}
			catch (InterruptedException ex) {
				break;
			}
			catch (RuntimeException ex) {
				if (!this.fetching) {
					break;
				}
				this.fetchFailures.failed("Consumer of topic '" + this.settings.topic()
						+ "' cannot fetch jobs; retrying every second until Redis answers", ex);
				this.signals.pause(Duration.ofSeconds(1));
			}
		}
	}

	/**
	 * Claims jobs from the hinted buckets into the free slots and starts them; each
	 * started job takes its slot at once, so a claim that throws later in the round
	 * leaves the count right.
	 */
	private void fetchInto(FreeSlots free) {
		Integer bucket;
		while (free.left() > 0 && this.fetching && (bucket = this.signals.nextBucket()) != null) {
			ClaimResult result = this.store.scripts()
				.await(this.store.claim(bucket, this.settings.topic(), free.left(), this.settings.lease().toMillis(),
						this.tokenPrefix + this.tokens.incrementAndGet(), this.settings.maxAttempts()),
						"claim jobs of topic " + this.settings.topic());
			for (ClaimedJob job : result.jobs()) {
				if (start(job, result.now())) {
					free.handOverOne();
				}
			}
			if (result.remaining() > 0) {
				this.signals.moreIn(bucket, free.left() == 0);
			}
		}
	}

	private boolean start(ClaimedJob job, long redisNow) {
		if (!this.fetching) {
			giveBack(List.of(job), true);
			return false;
		}
		RunningJob runningJob = new RunningJob(job);
		this.running.add(runningJob);
		try {
			this.workers.execute(() -> run(runningJob));
		}
		catch (RejectedExecutionException ex) {
			this.running.remove(runningJob);
			giveBack(List.of(job), true);
			return false;
		}
		this.events.started(job.topic(), Duration.ofMillis(Math.max(0, redisNow - job.dueAt())));
		return true;
	}

	// ---- running
	// -------------------------------------------------------------------------

	private void run(RunningJob runningJob) {
		ClaimedJob job = runningJob.job;
		runningJob.thread = Thread.currentThread();
		Delivery delivery = new Delivery(job.id(), job.topic(), job.attempt(),
				java.time.Instant.ofEpochMilli(job.dueAt()), java.time.Instant.ofEpochMilli(job.createdAt()));
		runningJob.timeout = this.timers.schedule(() -> timedOut(runningJob, delivery),
				this.settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
		MDC.put("redeq.topic", job.topic());
		MDC.put("redeq.jobId", job.id());
		try {
			Object payload;
			try {
				payload = this.codec.read(job.payload(), this.settings.payloadType());
			}
			catch (RuntimeException ex) {
				if (runningJob.settle()) {
					settleSafely(() -> this.outcomes.dead(job, delivery, "payload cannot be read as "
							+ this.settings.payloadType().getTypeName() + ": " + ex.getMessage()));
				}
				return;
			}
			this.handler.handle(payload, delivery);
			if (runningJob.settle()) {
				Duration took = Duration.ofNanos(System.nanoTime() - runningJob.startedNanos);
				settleSafely(() -> this.outcomes.completed(job, delivery, took));
			}
		}
		catch (Throwable ex) {
			if (runningJob.settle()) {
				Duration took = Duration.ofNanos(System.nanoTime() - runningJob.startedNanos);
				settleSafely(() -> this.outcomes.failed(job, delivery, ex, took));
			}
			if (ex instanceof VirtualMachineError error) {
				throw error;
			}
		}
		finally {
			finished(runningJob);
			MDC.remove("redeq.topic");
			MDC.remove("redeq.jobId");
			Thread.interrupted(); // a pooled thread must not carry a timeout's interrupt
									// into the next job
		}
	}

	private void timedOut(RunningJob runningJob, Delivery delivery) {
		if (!runningJob.settle()) {
			return;
		}
		Thread thread = runningJob.thread;
		if (thread != null) {
			thread.interrupt();
		}
		// The slot comes back now, even if the handler ignores the interrupt and keeps
		// its thread.
		finished(runningJob);
		try {
			this.workers.execute(() -> settleSafely(() -> this.outcomes.failed(runningJob.job, delivery,
					new HandlerTimeoutException(this.settings.timeout()), this.settings.timeout())));
		}
		catch (RejectedExecutionException ex) {
			// closing: the job stays IN_FLIGHT and is reclaimed when its lease expires
		}
	}

	private void finished(RunningJob runningJob) {
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

	private void settleSafely(Runnable outcome) {
		try {
			outcome.run();
			this.outcomeFailures.recovered("Consumer of topic '{}' stores outcomes again", this.settings.topic());
		}
		catch (RuntimeException ex) {
			this.outcomeFailures.failed("Consumer of topic '" + this.settings.topic()
					+ "' could not store a job's outcome; the job stays IN_FLIGHT and runs again when its lease expires",
					ex);
		}
	}

	// ---- closing
	// -------------------------------------------------------------------------

	@Override
	public void close() {
		if (!this.open.compareAndSet(true, false)) {
			return;
		}
		this.fetching = false;
		this.signals.close();
		this.slots.release(this.settings.concurrency()); // wakes a fetcher waiting for a
															// free slot
		joinFetcher();
		awaitRunning(this.options.shutdownTimeout());
		try {
			this.outcomes.flush(this.options.commandTimeout());
		}
		catch (RuntimeException ex) {
			logger.warn(
					"Could not complete the last finished jobs of topic '{}' ({}); they run again when their leases expire",
					this.settings.topic(), ex.getMessage());
		}
		List<ClaimedJob> unfinished = new ArrayList<>();
		for (RunningJob runningJob : this.running) {
			if (runningJob.settle()) {
				unfinished.add(runningJob.job);
				Thread thread = runningJob.thread;
				if (thread != null) {
					thread.interrupt();
				}
			}
		}
		giveBack(unfinished, false);
		this.leases.stop();
		this.workers.shutdownNow();
		this.onClosed.run();
		if (!unfinished.isEmpty()) {
			logger.info("Consumer of topic '{}' stopped; {} unfinished jobs handed back to READY",
					this.settings.topic(), unfinished.size());
		}
	}

	private void joinFetcher() {
		try {
			this.fetcher.join(this.options.commandTimeout().toMillis() + 1000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void awaitRunning(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		this.idleLock.lock();
		try {
			while (!this.running.isEmpty()) {
				long left = deadline - System.nanoTime();
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

	private void giveBack(List<ClaimedJob> jobs, boolean notStarted) {
		Map<Integer, List<ClaimedJob>> byBucket = new LinkedHashMap<>();
		for (ClaimedJob job : jobs) {
			byBucket.computeIfAbsent(job.bucket(), (b) -> new ArrayList<>()).add(job);
		}
		byBucket.forEach((bucket, inBucket) -> {
			try {
				this.store.release(bucket, inBucket, notStarted);
				this.store.signal(this.settings.topic(), bucket);
			}
			catch (RuntimeException ex) {
				logger.warn(
						"Could not hand {} jobs of topic '{}' back to READY ({}); they run again when their leases expire",
						inBucket.size(), this.settings.topic(), ex.getMessage());
			}
		});
	}

}
