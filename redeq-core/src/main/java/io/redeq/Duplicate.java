package io.redeq;

/**
 * What {@code schedule} does when the job's id is already taken in its topic.
 *
 * @since 0.1.0
 */
public enum Duplicate {

	/**
	 * Replace the payload and due time of the existing job if it is waiting (DELAYED,
	 * READY or DEAD); fail with {@link DuplicateJobException} if a handler is running it.
	 * The default.
	 */
	REPLACE,

	/** Leave the existing job untouched and return its id. */
	KEEP,

	/** Fail with {@link DuplicateJobException}. */
	REJECT

}
