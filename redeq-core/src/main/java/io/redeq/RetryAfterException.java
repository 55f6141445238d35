package io.redeq;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import io.redeq.internal.Validate;

/**
 * Thrown by a handler to say when its job should be tried again (a rate-limited API
 * answered "retry after 10 minutes"): the next attempt is due after {@link #delay()}
 * instead of the topic's backoff. The attempt still counts: a job whose attempts are used
 * up goes to DEAD as after any failure. redeq also recognises it as the cause of another
 * exception.
 *
 * @since 0.1.0
 */
public class RetryAfterException extends RuntimeException {

	private final Duration delay;

	/**
	 * Creates the exception.
	 * @param delay how long after this failure the next attempt is due; zero or more, at
	 * most the longest delay a job may have
	 * @throws IllegalArgumentException if the delay is negative or too long
	 */
	public RetryAfterException(Duration delay) {
		this(delay, "retry after " + delay, null);
	}

	/**
	 * Creates the exception.
	 * @param delay how long after this failure the next attempt is due; zero or more, at
	 * most the longest delay a job may have
	 * @param message what failed
	 * @param cause what failed, or null
	 * @throws IllegalArgumentException if the delay is negative or too long
	 */
	public RetryAfterException(Duration delay, String message, @Nullable Throwable cause) {
		super(message, cause);
		Objects.requireNonNull(delay, "delay must not be null");
		if (delay.isNegative() || delay.compareTo(Validate.MAX_DELAY) > 0) {
			throw new IllegalArgumentException(
					"RetryAfterException delay must be between 0 and " + Validate.MAX_DELAY + " but was " + delay);
		}
		this.delay = delay;
	}

	/**
	 * How long after this failure the next attempt is due.
	 * @return the delay
	 */
	public Duration delay() {
		return this.delay;
	}

}
