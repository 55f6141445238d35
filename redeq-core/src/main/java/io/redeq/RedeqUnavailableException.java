package io.redeq;

/**
 * Thrown when Redis cannot be reached, or does not answer, within the command timeout.
 * The operation may or may not have been applied; scheduling again with the same id and
 * {@link Duplicate#REPLACE} or {@link Duplicate#KEEP} is safe.
 *
 * <p>
 * Also thrown when Redis answers that it refuses writes for now, for a state of its own
 * that passes: out of memory under {@code maxmemory} with {@code noeviction}
 * ({@code OOM}), loading its data after a restart ({@code LOADING}), a replica after a
 * failover ({@code READONLY}), and {@code MASTERDOWN}, {@code CLUSTERDOWN},
 * {@code TRYAGAIN}, {@code BUSY}, {@code NOREPLICAS}, {@code MISCONF}. Then nothing was
 * applied; the cause holds Redis's reply. Either way the failure is not about the job:
 * the same call succeeds once Redis is back, so retry it later rather than give the job
 * up.
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
