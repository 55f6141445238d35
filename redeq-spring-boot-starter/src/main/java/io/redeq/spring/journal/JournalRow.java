package io.redeq.spring.journal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.ObjectMapper;

import io.redeq.Duplicate;
import io.redeq.Job;

/**
 * A pending job as the journal holds it: what it takes to send it to Redis again.
 *
 * @param topic the job's topic
 * @param id the job's id
 * @param payload the payload as JSON, or null
 * @param dueAt when it is due, epoch milliseconds
 * @param attempts attempts the job started so far (recovery carries them over)
 */
record JournalRow(String topic, String id, @Nullable String payload, long dueAt, int attempts) {

	/** The columns {@link #read} expects, in its order. */
	static final String COLUMNS = "topic, id, payload, due_at, attempts";

	static JournalRow read(ResultSet rows) throws SQLException {
		return new JournalRow(rows.getString(1), rows.getString(2), rows.getString(3), rows.getLong(4), rows.getInt(5));
	}

	/**
	 * The job to send again: same id, same due time (past due runs at once), the payload
	 * as the same JSON, and {@link Duplicate#KEEP}, so that a copy Redis still holds
	 * (waiting or running) is left alone.
	 */
	Job toJob(ObjectMapper mapper) {
		Object body = (this.payload != null) ? mapper.readTree(this.payload) : null;
		return Job.builder(this.topic)
			.id(this.id)
			.payload(body)
			.dueAt(Instant.ofEpochMilli(Math.max(0, this.dueAt)))
			.onDuplicate(Duplicate.KEEP)
			.build();
	}

}
