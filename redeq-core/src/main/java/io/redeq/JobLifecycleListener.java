package io.redeq;

import java.time.Duration;
import java.time.Instant;

/**
 * Told when each delivered job starts an attempt, and what became of it: succeeded,
 * retried or failed. {@link #onStart} is called on the worker thread just before the
 * handler; the outcomes are called after the outcome is stored in Redis. A listener that
 * throws is logged and ignored. Register with {@link Redeq.Builder#lifecycleListener}; in
 * Spring, declare beans of this type.
 *
 * @since 0.1.0
 */
public interface JobLifecycleListener {

	/**
	 * An attempt starts: called on the worker thread just before the handler runs (and
	 * before its payload is read), inside the handler's timeout. Keep it quick: the
	 * handler waits for it.
	 * @param delivery the job as it is delivered; {@link Delivery#attempt()} is the
	 * attempt that starts, 1 for the first
	 * @since 0.1.0
	 */
	default void onStart(Delivery delivery) {
	}

	/**
	 * The handler returned and the job is gone from Redis.
	 * @param delivery the job as it was delivered
	 * @param handlerDuration how long the handler ran
	 */
	default void onSuccess(Delivery delivery, Duration handlerDuration) {
	}

	/**
	 * The handler failed; the job runs again at {@code nextAttemptAt}.
	 * @param delivery the job as it was delivered
	 * @param error what the handler threw
	 * @param nextAttemptAt when the job is due again
	 */
	default void onRetry(Delivery delivery, Throwable error, Instant nextAttemptAt) {
	}

	/**
	 * The job is DEAD: attempts used up, or its payload could not be read.
	 * @param delivery the job as it was delivered
	 * @param reason why, in words for an operator
	 */
	default void onDead(Delivery delivery, String reason) {
	}

}
