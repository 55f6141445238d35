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

	/**
	 * Handles one delivery of a job. Returning acknowledges it; throwing fails this
	 * attempt, and the job is retried after its backoff or becomes dead after its last
	 * attempt.
	 * @param payload the job's payload
	 * @param delivery the job's id, attempt and due time
	 * @throws Exception to fail this attempt
	 */
	void handle(T payload, Delivery delivery) throws Exception;

}
