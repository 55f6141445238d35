package io.redeq.spring.internal.journal;

/**
 * A job's state in the journal. The first four are pending (the job is meant to run); the
 * last three are finished and deleted after the retention.
 */
public enum JournalState {

	/** Written in the application's transaction; not yet known to be in Redis. */
	OUTBOX(false),

	/**
	 * An application's transaction cancelled this job, scheduled before it; the cancel is
	 * not yet known to be applied in Redis.
	 */
	CANCELLING(false),

	/**
	 * An application's transaction moved this job, scheduled before it, to the row's due
	 * time; the move is not yet known to be applied in Redis.
	 */
	RESCHEDULING(false),

	/** In Redis, waiting for its due time or a worker. */
	SCHEDULED(false),

	/**
	 * A handler is running the attempt the row's {@code attempts} names (1 for the
	 * first).
	 */
	RUNNING(false),

	/** An attempt failed; in Redis again, due at its next attempt. */
	RETRYING(false),

	/** A handler returned. */
	COMPLETED(true),

	/** Attempts used up (or its payload unreadable); kept in Redis's dead set. */
	DEAD(true),

	/** Cancelled before it ran. */
	CANCELLED(true);

	private final boolean finished;

	JournalState(boolean finished) {
		this.finished = finished;
	}

	/**
	 * Whether the job's life is over, so the row only waits for the retention.
	 * @return true for COMPLETED, DEAD and CANCELLED
	 */
	public boolean isFinished() {
		return this.finished;
	}

}
