package io.redeq.spring.internal.journal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.ObjectMapper;

import io.redeq.Duplicate;
import io.redeq.Job;
import io.redeq.internal.schedule.AcceptedJob;

/**
 * A job as the journal holds it: what it takes to send it to Redis again as it was
 * scheduled, its own settings included.
 *
 * @param topic the job's topic
 * @param id the job's id
 * @param payload the payload as the JSON text Redis holds, or null
 * @param dueAt when it is due, epoch milliseconds
 * @param attempts attempts the job started so far (recovery carries them over)
 * @param timeoutMillis the job's own handler timeout in ms, or null for the topic's
 * @param maxAttempts the job's own attempts, or null for the topic's
 * @param priority the job's priority, 0 to 9
 * @param onDuplicate the duplicate policy it was scheduled with (null in rows written
 * before the journal recorded it: {@link Duplicate#REPLACE}, the default)
 * @param traceContext the trace context stored with the job in Redis, or null
 * @param version the version of the job the row describes, sent to Redis with it (see
 * {@link JobVersions}), or null in a row written before versions were kept
 * @param acceptedAt the Redis time (ms) Redis stored that version at, or null for a row
 * not known to be in Redis (an outbox row, a row read back)
 */
record JournalRow(String topic, String id, @Nullable String payload, long dueAt, int attempts,
		@Nullable Long timeoutMillis, @Nullable Integer maxAttempts, int priority, @Nullable Duplicate onDuplicate,
		@Nullable String traceContext, @Nullable String version, @Nullable Long acceptedAt) {

	/** The columns {@link #read} expects, in its order. */
	static final String COLUMNS = "topic, id, payload, due_at, attempts, timeout_ms, max_attempts, priority, "
			+ "on_duplicate, trace_context, job_version";

	/** The longest trace context a row holds (its column's size). */
	static final int MAX_TRACE_CONTEXT = 512;

	static JournalRow read(ResultSet rows) throws SQLException {
		long timeout = rows.getLong(6);
		Long timeoutMillis = (rows.wasNull() || timeout <= 0) ? null : timeout;
		int attempts = rows.getInt(7);
		Integer maxAttempts = (rows.wasNull() || attempts <= 0) ? null : attempts;
		String policy = rows.getString(9);
		return new JournalRow(rows.getString(1), rows.getString(2), rows.getString(3), rows.getLong(4), rows.getInt(5),
				timeoutMillis, maxAttempts, rows.getInt(8), duplicate(policy), rows.getString(10), rows.getString(11),
				null);
	}

	/**
	 * The row of a job about to be written to the outbox, before Redis saw it.
	 * @param job the job, with its id
	 * @param payload its payload as the engine's codec writes it
	 * @param dueAt when it is due, epoch milliseconds
	 * @param traceContext the trace context to send it with, or null
	 * @param version the version the job is sent as
	 * @return the row
	 */
	static JournalRow of(Job job, @Nullable String payload, long dueAt, @Nullable String traceContext,
			@Nullable String version) {
		return new JournalRow(job.topic(), String.valueOf(job.id()), payload, dueAt, 0,
				(job.timeout() != null) ? job.timeout().toMillis() : null, job.maxAttempts(), job.priority(),
				job.onDuplicate(), traceContext, version, null);
	}

	/**
	 * The row of a job Redis stored, as Redis holds it.
	 * @param job what the engine sent and Redis stored
	 * @return the row
	 */
	static JournalRow of(AcceptedJob job) {
		return new JournalRow(job.topic(), job.id(), job.payload(), job.dueAt(), 0,
				(job.timeoutMillis() > 0) ? job.timeoutMillis() : null,
				(job.maxAttempts() > 0) ? job.maxAttempts() : null, job.priority(), job.onDuplicate(),
				job.traceContext(), job.version(), job.acceptedAt());
	}

	/**
	 * Binds the parameters of {@link JournalDialect#upsert} to this row.
	 * @param upsert the insert statement
	 * @param state the row's state
	 * @param at the time of the insert, epoch milliseconds
	 * @throws SQLException if a parameter cannot be set
	 */
	void bindUpsert(PreparedStatement upsert, JournalState state, long at) throws SQLException {
		upsert.setString(1, this.topic);
		upsert.setString(2, this.id);
		upsert.setString(3, state.name());
		if (this.payload == null) {
			upsert.setNull(4, Types.VARCHAR);
		}
		else {
			upsert.setString(4, this.payload);
		}
		upsert.setLong(5, this.dueAt);
		upsert.setLong(6, at);
		upsert.setLong(7, at);
		if (this.timeoutMillis == null) {
			upsert.setNull(8, Types.BIGINT);
		}
		else {
			upsert.setLong(8, this.timeoutMillis);
		}
		if (this.maxAttempts == null) {
			upsert.setNull(9, Types.INTEGER);
		}
		else {
			upsert.setInt(9, this.maxAttempts);
		}
		upsert.setInt(10, this.priority);
		upsert.setString(11, policy().name());
		// A trace context longer than its column is dropped rather than cut: half a
		// tracestate is worse than none, and the job itself matters more.
		if (this.traceContext == null || this.traceContext.length() > MAX_TRACE_CONTEXT) {
			upsert.setNull(12, Types.VARCHAR);
		}
		else {
			upsert.setString(12, this.traceContext);
		}
		if (this.version == null) {
			upsert.setNull(13, Types.VARCHAR);
		}
		else {
			upsert.setString(13, this.version);
		}
		if (this.acceptedAt == null) {
			upsert.setNull(14, Types.BIGINT);
		}
		else {
			upsert.setLong(14, this.acceptedAt);
		}
	}

	/** The duplicate policy the job was scheduled with. */
	Duplicate policy() {
		return (this.onDuplicate != null) ? this.onDuplicate : Duplicate.REPLACE;
	}

	/**
	 * The job to send again after Redis lost it: same id, same due time (past due runs at
	 * once), the payload as the same JSON, the job's own settings, and
	 * {@link Duplicate#KEEP}, so that a copy Redis still holds (waiting or running), or a
	 * job scheduled under the same id since, is left alone.
	 * @param mapper reads the payload's JSON into a tree the engine writes back as is
	 * @return the job
	 */
	Job toJob(ObjectMapper mapper) {
		return toJob(mapper, Duplicate.KEEP);
	}

	/**
	 * The job of an outbox row whose send after commit never happened, for the relay: as
	 * {@link #toJob}, but a job its transaction scheduled with {@link Duplicate#REPLACE}
	 * replaces, as the send after commit would have: the transaction committed a new
	 * version of the job, and keeping the old one would run what the application
	 * replaced. {@code KEEP} and {@code REJECT} are sent as {@code KEEP}: a job Redis
	 * holds under the id stays (the relay cannot refuse a committed transaction).
	 * @param mapper reads the payload's JSON into a tree the engine writes back as is
	 * @return the job
	 */
	Job toRelayedJob(ObjectMapper mapper) {
		return toJob(mapper, (policy() == Duplicate.REPLACE) ? Duplicate.REPLACE : Duplicate.KEEP);
	}

	private Job toJob(ObjectMapper mapper, Duplicate onDuplicate) {
		Object body = (this.payload != null) ? mapper.readTree(this.payload) : null;
		Job.Builder builder = Job.builder(this.topic)
			.id(this.id)
			.payload(body)
			.dueAt(Instant.ofEpochMilli(Math.max(0, this.dueAt)))
			.onDuplicate(onDuplicate)
			.priority(this.priority);
		if (this.timeoutMillis != null) {
			builder.timeout(Duration.ofMillis(this.timeoutMillis));
		}
		if (this.maxAttempts != null) {
			builder.maxAttempts(this.maxAttempts);
		}
		return builder.build();
	}

	private static @Nullable Duplicate duplicate(@Nullable String policy) {
		if (policy == null) {
			return null;
		}
		for (Duplicate value : Duplicate.values()) {
			if (value.name().equals(policy)) {
				return value;
			}
		}
		return null;
	}

}
