package io.redeq.spring.internal.journal;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import io.redeq.Job;

/**
 * One change to a job's journal row, queued by the thread that saw it (a scheduling
 * caller, a worker) and written later by the journal's writer thread.
 */
sealed interface JournalEvent permits JournalEvent.Scheduled, JournalEvent.Changed {

	String topic();

	String id();

	/**
	 * Redis stored the job: its row is written (outside a transaction) or marked sent
	 * (after the outbox row's transaction committed). The row is prepared when Redis
	 * answered, from what the engine sent: the payload is the JSON its codec wrote on the
	 * caller's thread at the call, so the writer thread never touches the live payload
	 * object (which the caller may have changed since, or which may not be readable
	 * outside its own transaction).
	 *
	 * @param row the job as Redis holds it
	 * @param at when Redis accepted it, epoch milliseconds
	 */
	record Scheduled(JournalRow row, long at) implements JournalEvent {

		/**
		 * The event of a job whose payload a plain Jackson mapper writes, due at
		 * {@code dueAt}: for tests of the writer.
		 * @param job the job, with its id
		 * @param dueAt when it is due, epoch milliseconds
		 * @param at when Redis accepted it, epoch milliseconds
		 */
		Scheduled(Job job, long dueAt, long at) {
			this(JournalRow.of(job,
					(job.payload() != null) ? JsonMapper.builder().build().writeValueAsString(job.payload()) : null,
					dueAt, null, null), at);
		}

		@Override
		public String topic() {
			return this.row.topic();
		}

		@Override
		public String id() {
			return this.row.id();
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
	 * @param version the version of the job a delivery ran (see {@link JobVersions}): the
	 * step is written only to a row of that version; null for a step that is not about
	 * one version (a cancel, a reschedule) or of a job sent without one
	 */
	record Changed(String topic, String id, JournalState state, @Nullable Integer attempts, @Nullable Long dueAt,
			@Nullable String error, long at, @Nullable String version) implements JournalEvent {

		/** A step that is not about one version of the job. */
		Changed(String topic, String id, JournalState state, @Nullable Integer attempts, @Nullable Long dueAt,
				@Nullable String error, long at) {
			this(topic, id, state, attempts, dueAt, error, at, null);
		}

	}

}
