package io.redeq;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by a handler to say that retrying cannot help (a card declined, an order that no
 * longer exists): the job goes to DEAD at once, whatever attempts it has left, with this
 * exception as its last error. redeq also recognises it as the cause of another
 * exception, so a framework that wraps the handler's exception does not hide it.
 *
 * <p>
 * For exceptions the application does not own, the Spring Boot starter's
 * {@code redeq.consumer.not-retryable} (and {@code redeq.topics.<topic>.not-retryable})
 * names exception classes that count as this one.
 *
 * @since 0.1.0
 */
public class NotRetryableException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param message why retrying cannot help
	 */
	public NotRetryableException(String message) {
		super(message);
	}

	/**
	 * Creates the exception.
	 * @param message why retrying cannot help
	 * @param cause what failed
	 */
	public NotRetryableException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
