package io.redeq;

import java.time.Duration;
import java.time.Instant;

/**
 * Told what became of each delivered job: the seed design's onSucceed, onRetry and
 * onFailed. Called on the worker thread after the outcome is stored in Redis; a listener
 * that throws is logged and ignored. Register with
 * {@link Redeq.Builder#lifecycleListener}; in Spring, declare beans of this type.
 *
 * @since 0.1.0
 */
public interface JobLifecycleListener {

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
