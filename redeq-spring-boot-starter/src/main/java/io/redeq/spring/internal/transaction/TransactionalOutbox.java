package io.redeq.spring.internal.transaction;

import java.time.Instant;
import java.util.List;

import io.redeq.Job;

/**
 * Where {@link TransactionAwareRedeqClient} records what a transaction changed, inside
 * that transaction: the redeq journal's outbox table. Its rows commit or roll back with
 * the application's data, so a change whose send after commit never happened (the process
 * died, Redis refused) is still known and applied later.
 *
 * <p>
 * Called once per transaction, just before it commits, on the committing thread.
 *
 * @since 0.1.0
 */
public interface TransactionalOutbox {

	/**
	 * Writes the jobs the transaction schedules, each as it stands at the commit.
	 * @param jobs the jobs, each with its id
	 */
	void write(List<Job> jobs);

	/**
	 * Marks a job the transaction scheduled and then cancelled, before it was sent. redeq
	 * no longer calls it (such a job is never written); kept for implementations written
	 * against it.
	 * @param topic the job's topic
	 * @param id the job's id
	 */
	void discard(String topic, String id);

	/**
	 * Records that the transaction cancels a job scheduled before it, so that the cancel
	 * is applied even when the process dies between the commit and its send.
	 * @param topic the job's topic
	 * @param id the job's id
	 */
	default void cancel(String topic, String id) {
	}

	/**
	 * Records that the transaction moves a job scheduled before it to a new due time, so
	 * that the move is applied even when the process dies between the commit and its
	 * send.
	 * @param topic the job's topic
	 * @param id the job's id
	 * @param dueAt the new due time
	 */
	default void reschedule(String topic, String id, Instant dueAt) {
	}

}
