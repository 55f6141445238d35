package io.redeq;

/**
 * Thrown when Redis cannot be reached, or does not answer, within the command timeout.
 * The operation may or may not have been applied; scheduling again with the same id and
 * {@link Duplicate#REPLACE} or {@link Duplicate#KEEP} is safe.
 *
 * @since 0.1.0
 */
public class RedeqUnavailableException extends RedeqException {

	/**
	 * Creates the exception.
	 * @param message what could not be done
	 * @param cause the error of the Redis client
	 */
	public RedeqUnavailableException(String message, Throwable cause) {
		super(message, cause);
	}

}
