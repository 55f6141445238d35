package io.redeq;

/**
 * Base class of the errors redeq reports. Unchecked, like Spring's data access
 * exceptions: the caller decides where handling them is worth it.
 *
 * @since 0.1.0
 */
public class RedeqException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param message the message
	 */
	public RedeqException(String message) {
		super(message);
	}

	/**
	 * Creates the exception.
	 * @param message the message
	 * @param cause the cause
	 */
	public RedeqException(String message, Throwable cause) {
		super(message, cause);
	}

}
