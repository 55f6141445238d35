package io.redeq.internal.consumer;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

import io.redeq.internal.redis.ClaimedJob;

/**
 * The completion of one finished job, from the moment its handler returned until Redis
 * answered for it. Several attempts may be on their way (a retry sent while the reply to
 * an earlier one is late); the first answer wins and is reported once.
 */
final class PendingCompletion {

	final ClaimedJob job;

	private final Outcome outcome;

	private final AtomicReference<@Nullable Boolean> completed = new AtomicReference<>();

	private final AtomicBoolean reported = new AtomicBoolean();

	private volatile boolean mayHaveLanded;

	/** When it was queued, on the acknowledgements' clock ({@link System#nanoTime()}). */
	final long queuedNanos;

	PendingCompletion(ClaimedJob job, Outcome outcome, long queuedNanos) {
		this.job = job;
		this.outcome = outcome;
		this.queuedNanos = queuedNanos;
	}

	/**
	 * Records what Redis said: completed, or the claim was no longer ours. True if this
	 * was the first answer.
	 */
	boolean answer(boolean completed) {
		return this.completed.compareAndSet(null, completed);
	}

	boolean isAnswered() {
		return this.completed.get() != null;
	}

	/**
	 * An attempt got no answer; {@code mayHaveLanded} when Redis may still have run it
	 * (no reply, rather than an error reply).
	 */
	void attemptFailed(boolean mayHaveLanded) {
		if (mayHaveLanded) {
			this.mayHaveLanded = true;
		}
	}

	/** Tells the outcome, once, after the answer came. */
	void report() {
		Boolean completed = this.completed.get();
		if (completed != null && this.reported.compareAndSet(false, true)) {
			this.outcome.answered(completed ? Answer.COMPLETED
					: (this.mayHaveLanded ? Answer.GONE_AFTER_UNANSWERED_ATTEMPT : Answer.CLAIM_LOST));
		}
	}

	/** What Redis said about one finished job. */
	enum Answer {

		/** Completed: the job is gone from Redis. */
		COMPLETED,

		/**
		 * The claim was no longer ours: the lease had expired and the job may run again
		 * elsewhere.
		 */
		CLAIM_LOST,

		/**
		 * The claim was gone when a retry asked, after an attempt whose reply never came:
		 * most likely that attempt completed the job.
		 */
		GONE_AFTER_UNANSWERED_ATTEMPT

	}

	/** What became of one job's completion. */
	@FunctionalInterface
	interface Outcome {

		void answered(Answer answer);

	}

}
