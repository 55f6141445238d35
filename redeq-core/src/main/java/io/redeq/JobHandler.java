package io.redeq;

/**
 * Runs a job when it is due. Returning normally completes the job; throwing schedules a
 * retry with backoff, and after the last attempt moves the job to DEAD.
 *
 * <p>
 * Delivery is at least once: a handler may see the same job again after its instance died
 * or its lease expired, so handlers should be idempotent.
 *
 * @param <T> the payload type
 * @since 0.1.0
 */
@FunctionalInterface
public interface JobHandler<T> {

	void handle(T payload, Delivery delivery) throws Exception;

}
