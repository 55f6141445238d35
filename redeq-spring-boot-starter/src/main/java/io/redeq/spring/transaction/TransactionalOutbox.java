package io.redeq.spring.transaction;

import java.util.List;

import io.redeq.Job;

/**
 * Where {@link TransactionAwareRedeqClient} also writes the jobs a transaction schedules,
 * inside that transaction: the redeq journal's outbox table. Its rows commit or roll back
 * with the application's data, so a job whose send after commit never happened (the
 * process died) is still known and sent later.
 *
 * @since 0.1.0
 */
public interface TransactionalOutbox {

	/**
	 * Writes jobs in the current transaction. Called at the {@code schedule} call, and
	 * again with the new due time when the transaction reschedules a job it scheduled.
	 * @param jobs the jobs, each with its id
	 */
	void write(List<Job> jobs);

	/**
	 * Marks a job the transaction scheduled and then cancelled, before it was sent.
	 * @param topic the job's topic
	 * @param id the job's id
	 */
	void discard(String topic, String id);

}
