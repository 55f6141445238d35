package io.redeq;

/**
 * Where a job is in its life: DELAYED → READY → IN_FLIGHT → (done | DELAYED again for a
 * retry | DEAD). A finished or cancelled job no longer exists.
 *
 * @since 0.1.0
 */
public enum JobState {

	/** Waiting in its bucket for its due time. */
	DELAYED,

	/** Due and waiting in its topic's ready queue for a consumer. */
	READY,

	/** Claimed by a handler that holds a lease on it. */
	IN_FLIGHT,

	/** Attempts used up or payload unreadable; kept for inspection and requeue. */
	DEAD

}
