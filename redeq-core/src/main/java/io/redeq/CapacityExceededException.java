package io.redeq;

/**
 * Thrown when a topic already holds {@code redeq.max-pending} pending jobs and refuses
 * one more. Nothing of the refused job is written.
 *
 * @since 0.1.0
 */
public class CapacityExceededException extends RedeqException {

	/**
	 * Creates the exception.
	 * @param message what was refused, and the limit
	 */
	public CapacityExceededException(String message) {
		super(message);
	}

}
