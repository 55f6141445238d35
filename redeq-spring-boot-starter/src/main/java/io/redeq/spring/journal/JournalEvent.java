package io.redeq.spring.journal;

import org.jspecify.annotations.Nullable;

import io.redeq.Job;

/**
 * One change to a job's journal row, queued by the thread that saw it (a scheduling
 * caller, a worker) and written later by the journal's writer thread.
 */
sealed interface JournalEvent permits JournalEvent.Scheduled, JournalEvent.Changed {

	String topic();

	String id();

	/**
	 * Redis accepted the job: its row is written (outside a transaction) or marked sent
	 * (after the outbox row's transaction committed). The payload is turned into JSON on
	 * the writer thread, off the caller's path.
	 *
	 * @param job the job, with its id
	 * @param dueAt when it is due, epoch milliseconds
	 * @param at when Redis accepted it, epoch milliseconds
	 */
	record Scheduled(Job job, long dueAt, long at) implements JournalEvent {

		@Override
		public String topic() {
			return this.job.topic();
		}

		@Override
		public String id() {
			return String.valueOf(this.job.id());
		}

	}

	/**
	 * A later step of the job's life.
	 *
	 * @param topic the job's topic
	 * @param id the job's id
	 * @param state the new state
	 * @param attempts attempts made so far, or null to keep the recorded count
	 * @param dueAt the new due time (epoch milliseconds), or null to keep it
	 * @param error the error of a failed attempt, or null to keep the recorded one
	 * @param at when it happened, epoch milliseconds
	 */
	record Changed(String topic, String id, JournalState state, @Nullable Integer attempts, @Nullable Long dueAt,
			@Nullable String error, long at) implements JournalEvent {
	}

}
