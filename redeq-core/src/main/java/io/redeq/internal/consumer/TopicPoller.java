package io.redeq.internal.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.Delivery;
import io.redeq.PolledJob;
import io.redeq.RedeqException;
import io.redeq.internal.JobEvents;
import io.redeq.internal.JobIds;
import io.redeq.internal.LayoutHold;
import io.redeq.internal.codec.PayloadCodec;
import io.redeq.internal.control.StartLimiter;
import io.redeq.internal.control.TopicPauses;
import io.redeq.internal.redis.ClaimResult;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.LayoutChangedException;
import io.redeq.internal.redis.RedisJobStore;

/**
 * Pull consumption of one topic: {@link #poll(Duration)} claims one READY job under a
 * lease of the topic's timeout and hands it to the caller as a {@link PolledJob}, whose
 * ack and fail are the same fenced scripts a listener's outcome uses.
 *
 * <p>
 * Waiting uses a listener fetcher's wake-up ({@link WorkSignals}: BLPOP on the topic's
 * signal list, which the migrator pushes to as jobs become READY), so a waiting poll
 * costs Redis one blocked command per poll interval. Polls of the topic take turns on a
 * fair lock: one caller at a time waits in Redis and claims; the others wait for the lock
 * within their own {@code maxWait}. A claim whose reply was lost is handed back before
 * the next claim ({@link LostClaims}), as a fetcher does. Polled jobs get no lease
 * renewal: the lease is the caller's deadline.
 */
final class TopicPoller implements PolledDelivery.Settlement {

	/** How often a poll of a paused topic looks whether it was resumed. */
	private static final Duration PAUSED_CHECK = Duration.ofMillis(100);

	/** The least a poll waits when the rate limit's window is full: it never spins. */
	private static final long MIN_RATE_WAIT_MILLIS = 10;

	private static final Logger logger = LoggerFactory.getLogger(TopicPoller.class);

	private final ConsumerSettings settings;

	private final RedisJobStore store;

	private final PayloadCodec codec;

	private final JobEvents events;

	private final TopicPauses pauses;

	private final JobOutcomes outcomes;

	private final NotRetryableClasses notRetryable;

	private final WorkSignals signals;

	private final LostClaims lostClaims;

	private final @Nullable StartLimiter limiter;

	private final String tokenPrefix;

	private final AtomicLong tokens = new AtomicLong();

	private final ReentrantLock turn = new ReentrantLock(true);

	private volatile boolean open = true;

	/**
	 * The last claim found the topic's rate limit window full (the turn's thread only).
	 */
	private boolean rateLimited;

	/** Said when a frozen bucket refuses a poll (the turn's thread only). */
	private final LayoutHold layoutHold;

	TopicPoller(ConsumerSettings settings, ConsumerContext context, Set<String> notRetryable) {
		this.settings = settings;
		this.layoutHold = new LayoutHold(logger, "Poller of topic '" + settings.topic() + "'", "claims nothing");
		this.store = context.store();
		this.codec = context.codec();
		this.events = context.events();
		this.pauses = context.pauses();
		this.notRetryable = new NotRetryableClasses(settings.topic(), notRetryable);
		this.outcomes = new JobOutcomes(this.store, settings, context.listeners(), this.events, context.wakeUps(),
				null);
		this.signals = new WorkSignals(this.store, context.options(), settings.topic(), context.localSignals());
		this.lostClaims = new LostClaims(this.store, settings.topic(), settings.lease(), System::nanoTime);
		this.limiter = (settings.rateLimit() != null)
				? new StartLimiter(this.store, settings.topic(), settings.rateLimit()) : null;
		this.tokenPrefix = context.instanceId() + ":poll:" + JobIds.next().substring(0, 8) + ":";
	}

	String topic() {
		return this.settings.topic();
	}

	/**
	 * Claims one due job, waiting up to {@code maxWait} for one.
	 * @return the job; empty after {@code maxWait}, when closed meanwhile or interrupted
	 */
	Optional<PolledJob> poll(Duration maxWait) {
		long deadline = System.nanoTime() + maxWait.toNanos();
		try {
			if (!this.turn.tryLock(maxWait.toNanos(), TimeUnit.NANOSECONDS)) {
				return Optional.empty();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
		try {
			return pollInTurn(deadline);
		}
		catch (RuntimeException ex) {
			if (!this.open || Thread.currentThread().isInterrupted()) {
				// Closing or an interrupt cut a wait short; a claim it cut short is
				// handed back by the next poll (LostClaims) or by close.
				return Optional.empty();
			}
			throw ex;
		}
		finally {
			this.turn.unlock();
		}
	}

	private Optional<PolledJob> pollInTurn(long deadline) {
		boolean lookedLast = false;
		while (this.open && !Thread.currentThread().isInterrupted()) {
			long left = deadline - System.nanoTime();
			if (this.pauses.isPaused(this.settings.topic())) {
				if (left <= 0) {
					return Optional.empty();
				}
				this.signals.pause(Duration.ofNanos(Math.min(left, PAUSED_CHECK.toNanos())));
				if (!this.pauses.isPaused(this.settings.topic())) {
					// Resumed: whatever became READY meanwhile may have no signal left.
					this.signals.lookEverywhere();
				}
				continue;
			}
			if (this.lostClaims.anyDue()) {
				this.lostClaims.handBack().forEach(this.signals::moreHere);
			}
			// The hinted buckets, oldest hint first; the ones not tried are hinted again.
			List<Integer> hinted = new ArrayList<>(this.signals.takeHinted());
			for (int i = 0; i < hinted.size(); i++) {
				int bucket = hinted.get(i);
				Optional<PolledJob> job = this.open ? claimOne(bucket, deadline) : Optional.empty();
				if (job.isPresent() || this.rateLimited || !this.open) {
					hinted.subList(i + 1, hinted.size()).forEach(this.signals::moreHere);
				}
				if (job.isPresent()) {
					return job;
				}
				if (this.rateLimited) {
					// It waited for the window, within the deadline; the bucket is
					// hinted again, so the next round tries it first.
					this.rateLimited = false;
					break;
				}
			}
			if (lookedLast || !this.open) {
				return Optional.empty();
			}
			// Also with no time left: a poll looks once before it ends empty.
			this.signals.awaitWork(Duration.ofNanos(Math.max(0, left)));
			// Too little left to block: claim what that look found, then end.
			lookedLast = deadline - System.nanoTime() < WorkSignals.SHORTEST_BLOCK.toNanos();
		}
		return Optional.empty();
	}

	private Optional<PolledJob> claimOne(int bucket, long deadline) {
		String token = this.tokenPrefix + this.tokens.incrementAndGet();
		StartLimiter.Grant grant = null;
		if (this.limiter != null) {
			grant = this.limiter.acquire(1, token);
			if (grant.permits() == 0) {
				this.signals.moreHere(bucket);
				this.rateLimited = true;
				long waitNanos = Math.min(
						TimeUnit.MILLISECONDS.toNanos(Math.max(grant.retryAfterMillis(), MIN_RATE_WAIT_MILLIS)),
						deadline - System.nanoTime());
				if (waitNanos > 0) {
					this.signals.pause(Duration.ofNanos(waitNanos));
				}
				return Optional.empty();
			}
		}
		long signalsBefore = this.signals.heads().signals(bucket);
		ClaimResult result;
		try {
			result = this.store.scripts()
				.await(this.store.claim(bucket, this.settings.topic(), 1, this.settings.lease().toMillis(), token,
						this.settings.maxAttempts()), "poll a job of topic " + this.settings.topic());
		}
		catch (LayoutChangedException ex) {
			// A frozen bucket while the bucket count changes: nothing claimed. The bucket
			// is tried again after a short wait; the engine follows the recorded layout.
			if (grant != null) {
				this.limiter.release(grant, 0);
			}
			this.layoutHold.refused(ex);
			long waitNanos = Math.min(LayoutHold.PAUSE.toNanos(), deadline - System.nanoTime());
			if (waitNanos > 0) {
				this.signals.pause(Duration.ofNanos(waitNanos));
			}
			this.signals.moreHere(bucket);
			return Optional.empty();
		}
		catch (RedeqException ex) {
			this.lostClaims.failed(bucket, token, ex);
			throw ex;
		}
		this.layoutHold.answered();
		if (grant != null) {
			this.limiter.release(grant, result.jobs().size());
		}
		double atLeast = result.jobs().isEmpty() ? Double.NEGATIVE_INFINITY
				: result.jobs().get(result.jobs().size() - 1).readyScore();
		this.signals.claimed(bucket, signalsBefore, result.remaining(), atLeast, true);
		if (result.jobs().isEmpty()) {
			return Optional.empty();
		}
		ClaimedJob job = result.jobs().get(0);
		if (!this.open) {
			handBack(job);
			return Optional.empty();
		}
		Duration lease = job.settings().timeout(this.settings.timeout());
		if (!lease.equals(this.settings.lease())) {
			// The job set its own timeout: its lease is that, as a listener's would be.
			try {
				this.store.scripts()
					.await(this.store.extend(bucket, lease.toMillis(), List.of(job)),
							"lease polled job " + JobOutcomes.describe(job));
			}
			catch (RedeqException ex) {
				handBack(job); // not handed out, so back to READY with its attempt
				throw ex;
			}
		}
		Delivery delivery = new Delivery(job.id(), job.topic(), job.attempt(), Instant.ofEpochMilli(job.dueAt()),
				Instant.ofEpochMilli(job.createdAt()));
		this.events.started(job.topic(), Duration.ofMillis(Math.max(0, result.now() - job.dueAt())));
		this.outcomes.started(job, delivery);
		return Optional.of(new PolledDelivery(job, delivery, this));
	}

	/**
	 * A job claimed but not handed out (closing, or its lease could not be set) goes back
	 * to READY with its attempt; if Redis does not answer, when its lease expires.
	 */
	private void handBack(ClaimedJob job) {
		try {
			this.store.release(job.bucket(), List.of(job), true);
		}
		catch (RedeqException ex) {
			// it stays IN_FLIGHT until its lease expires
		}
	}

	// ---- what a PolledDelivery asks for

	@Override
	public @Nullable Object read(ClaimedJob job, Class<?> type) {
		return this.codec.read(job.payload(), type);
	}

	@Override
	public boolean complete(ClaimedJob job) {
		List<Boolean> completed = this.store.scripts()
			.await(this.store.completeAll(job.bucket(), List.of(job)), "ack job " + JobOutcomes.describe(job));
		return !completed.isEmpty() && completed.get(0);
	}

	@Override
	public void succeeded(ClaimedJob job, Delivery delivery, Duration took) {
		this.outcomes.succeeded(job, delivery, took);
	}

	/** Retries or buries the job as a listener's failure would. */
	@Override
	public boolean fail(ClaimedJob job, Delivery delivery, Throwable error, Duration took) {
		return this.outcomes.failed(job, delivery, this.notRetryable.classify(error), took);
	}

	/**
	 * Ends every wait at once: a waiting poll returns empty, a poll queued for its turn
	 * gets it and returns empty too.
	 */
	void close() {
		this.open = false;
		this.signals.close();
		this.lostClaims.handBackAll();
	}

}
