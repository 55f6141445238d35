package io.redeq;

/**
 * Thrown when a job's serialised payload is larger than {@code redeq.max-payload-size}.
 *
 * @since 0.1.0
 */
public class PayloadTooLargeException extends RedeqException {

	/**
	 * Creates the exception.
	 * @param message the payload size, and the limit
	 */
	public PayloadTooLargeException(String message) {
		super(message);
	}

}
