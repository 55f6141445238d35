package io.redeq;

/**
 * What the job history counts per topic and period.
 *
 * @see RedeqHistory
 */
public enum HistoryKind {

	/** Jobs written by a schedule call. */
	SCHEDULED,

	/** Jobs whose handler returned. */
	COMPLETED,

	/** Failed attempts that will run again. */
	RETRIED,

	/** Jobs a handler gave up on (attempts used up, payload unreadable). */
	DEAD

}
