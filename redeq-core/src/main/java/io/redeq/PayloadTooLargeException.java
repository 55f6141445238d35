package io.redeq;

/**
 * Thrown when a job's serialised payload is larger than {@code redeq.max-payload-size}.
 *
 * @since 0.1.0
 */
public class PayloadTooLargeException extends RedeqException {

	public PayloadTooLargeException(String message) {
		super(message);
	}

}
