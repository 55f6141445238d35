package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.ObjectMapper;

import io.redeq.CapacityExceededException;
import io.redeq.DuplicateJobException;
import io.redeq.Job;
import io.redeq.PayloadTooLargeException;
import io.redeq.RedeqClient;
import io.redeq.RedeqUnavailableException;

/**
 * Sends the outbox rows nobody sent: their transaction committed but the process died
 * before the send after commit, or Redis was down then. Every instance runs it; rows are
 * claimed with {@code FOR UPDATE SKIP LOCKED}, so two instances never send the same row
 * at the same time. A row is sent with its job's own settings; a job its transaction
 * scheduled with {@link io.redeq.Duplicate#REPLACE} replaces the job Redis holds under
 * its id (as the send after commit would have), any other is sent with
 * {@link io.redeq.Duplicate#KEEP}, so a job Redis already holds is left as it is (see
 * {@link JournalRow#toRelayedJob}).
 *
 * <p>
 * Only rows older than a grace period are taken: a younger one is most likely being sent
 * right now by the instance that committed it.
 *
 * <p>
 * A row is given up (marked DEAD with the reason) only for an error about that job: a
 * payload over the size limit, a job that is not valid, a payload the mapper cannot read.
 * Any other failure is Redis's state or the client's, not the job's (Redis down, out of
 * memory, loading, a read-only replica, refusing the script): the row stays in the outbox
 * for a later run, and the run fails so that the error shows.
 */
final class OutboxRelay {

	private static final Log logger = LogFactory.getLog(OutboxRelay.class);

	private final DataSource dataSource;

	private final RedeqClient client;

	/** Each row's job is sent as the version of its row. */
	private final JobVersions versions;

	private final ObjectMapper mapper;

	private final Clock clock;

	private final Duration grace;

	private final int batchSize;

	private final String claimSql;

	private final String sentSql;

	private final String refusedSql;

	private final String notYetSql;

	OutboxRelay(DataSource dataSource, String table, RedeqClient client, ObjectMapper mapper, JobVersions versions,
			Clock clock, Duration grace, int batchSize) {
		this.dataSource = dataSource;
		this.client = client;
		this.versions = versions;
		this.mapper = mapper;
		this.clock = clock;
		this.grace = grace;
		this.batchSize = batchSize;
		this.claimSql = "SELECT " + JournalRow.COLUMNS + " FROM " + table + " WHERE state = '" + JournalState.OUTBOX
				+ "' AND updated_at < ? ORDER BY updated_at LIMIT " + batchSize + " FOR UPDATE SKIP LOCKED";
		this.refusedSql = "UPDATE " + table + " SET state = '" + JournalState.DEAD + "', last_error = ?, "
				+ "updated_at = ?, finished_at = ? WHERE topic = ? AND id = ? AND state = '" + JournalState.OUTBOX
				+ "'";
		this.sentSql = "UPDATE " + table + " SET state = '" + JournalState.SCHEDULED + "', updated_at = ? "
				+ "WHERE topic = ? AND id = ? AND state = '" + JournalState.OUTBOX + "'";
		this.notYetSql = "UPDATE " + table + " SET updated_at = ? WHERE topic = ? AND id = ? AND state = '"
				+ JournalState.OUTBOX + "'";
	}

	/**
	 * Sends every unsent row older than the grace period, one claimed batch per
	 * transaction, for at most {@code maxBatches} batches.
	 * @param maxBatches bound on the work of one call
	 * @return how many rows were sent
	 * @throws SQLException if the database fails
	 * @throws RuntimeException if Redis could not take a job for a reason not about the
	 * job (Redis down or refusing writes for now, say): that row and the ones not tried
	 * yet stay unsent, the ones sent before are marked sent
	 */
	int relay(int maxBatches) throws SQLException {
		int sent = 0;
		for (int i = 0; i < maxBatches; i++) {
			Batch batch = relayBatch();
			sent += batch.sent();
			if (batch.failure() != null) {
				throw batch.failure();
			}
			if (batch.claimed() < this.batchSize) {
				break;
			}
		}
		return sent;
	}

	private Batch relayBatch() throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(false);
			try {
				List<JournalRow> rows = claim(connection);
				// While the rows are locked: another relay skips them, and a crash here
				// leaves them unsent for the next one.
				Batch batch = rows.isEmpty() ? new Batch(0, 0, null) : send(connection, rows);
				connection.commit();
				return batch;
			}
			catch (SQLException | RuntimeException ex) {
				connection.rollback();
				throw ex;
			}
		}
	}

	/**
	 * Sends the batch in one call; when that fails for one of its jobs, one at a time.
	 * Redis unavailable fails the whole batch at once, every row left as it was.
	 */
	private Batch send(Connection connection, List<JournalRow> rows) throws SQLException {
		List<Job> jobs = new ArrayList<>(rows.size());
		try {
			for (JournalRow row : rows) {
				Job job = row.toRelayedJob(this.mapper);
				this.versions.assign(job, row.version(), row.traceContext());
				jobs.add(job);
			}
			this.client.scheduleAll(jobs);
		}
		catch (RedeqUnavailableException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			return sendOneByOne(connection, rows);
		}
		finally {
			this.versions.forget(jobs);
		}
		markSent(connection, rows);
		return new Batch(rows.size(), rows.size(), null);
	}

	/**
	 * One job of the batch was refused. Sends them one at a time, so that the others go
	 * out. A job refused for an error about the job itself is marked DEAD with the
	 * reason, so that it does not come back on every run. A full topic
	 * ({@link CapacityExceededException}) is not for good: that row steps back behind the
	 * other unsent rows, so that rows of other topics get their turn. Any other error
	 * stops the batch: the row steps back, the rest of the batch waits for the next run
	 * as it is, and the error is returned for the run to report.
	 */
	private Batch sendOneByOne(Connection connection, List<JournalRow> rows) throws SQLException {
		List<JournalRow> sent = new ArrayList<>();
		List<JournalRow> notYet = new ArrayList<>();
		CapacityExceededException full = null;
		int fullRows = 0;
		RuntimeException failure = null;
		for (JournalRow row : rows) {
			Job job;
			try {
				job = row.toRelayedJob(this.mapper);
			}
			catch (RuntimeException ex) {
				giveUp(connection, row, "its row cannot be read as a job", ex);
				continue;
			}
			try {
				this.versions.sending(job, row.version(), row.traceContext(), () -> this.client.schedule(job));
				sent.add(row);
			}
			catch (CapacityExceededException ex) {
				full = ex;
				fullRows++;
				notYet.add(row);
			}
			catch (DuplicateJobException ex) {
				// A REPLACE that met its job while it runs: not for good either.
				notYet.add(row);
			}
			catch (PayloadTooLargeException | IllegalArgumentException ex) {
				giveUp(connection, row, "redeq refuses it", ex);
			}
			catch (RuntimeException ex) {
				notYet.add(row);
				failure = ex;
				break;
			}
		}
		markSent(connection, sent);
		stepBack(connection, notYet);
		if (full != null) {
			logger.warn("redeq journal could not relay " + fullRows
					+ " job(s) yet, their topic is full; they are tried again after the others: " + full.getMessage());
		}
		return new Batch(rows.size(), sent.size(), failure);
	}

	private void giveUp(Connection connection, JournalRow row, String why, RuntimeException error) throws SQLException {
		logger.error("redeq journal gives up relaying job '" + row.id() + "' of topic '" + row.topic() + "', as " + why
				+ "; its row is marked DEAD: " + error.getMessage());
		long now = this.clock.millis();
		try (PreparedStatement refused = connection.prepareStatement(this.refusedSql)) {
			refused.setString(1, String.valueOf(error));
			refused.setLong(2, now);
			refused.setLong(3, now);
			refused.setString(4, row.topic());
			refused.setString(5, row.id());
			refused.executeUpdate();
		}
	}

	private List<JournalRow> claim(Connection connection) throws SQLException {
		List<JournalRow> rows = new ArrayList<>();
		try (PreparedStatement claim = connection.prepareStatement(this.claimSql)) {
			claim.setLong(1, this.clock.millis() - this.grace.toMillis());
			try (ResultSet result = claim.executeQuery()) {
				while (result.next()) {
					rows.add(JournalRow.read(result));
				}
			}
		}
		return rows;
	}

	private void markSent(Connection connection, List<JournalRow> rows) throws SQLException {
		if (rows.isEmpty()) {
			return;
		}
		long now = this.clock.millis();
		try (PreparedStatement sent = connection.prepareStatement(this.sentSql)) {
			for (JournalRow row : rows) {
				sent.setLong(1, now);
				sent.setString(2, row.topic());
				sent.setString(3, row.id());
				sent.addBatch();
			}
			sent.executeBatch();
		}
	}

	/**
	 * Moves rows that could not be sent yet behind the others: the claim takes the oldest
	 * {@code updated_at} first, and a row stamped now is not claimed again before the
	 * grace period has passed.
	 */
	private void stepBack(Connection connection, List<JournalRow> rows) throws SQLException {
		if (rows.isEmpty()) {
			return;
		}
		long now = this.clock.millis();
		try (PreparedStatement notYet = connection.prepareStatement(this.notYetSql)) {
			for (JournalRow row : rows) {
				notYet.setLong(1, now);
				notYet.setString(2, row.topic());
				notYet.setString(3, row.id());
				notYet.addBatch();
			}
			notYet.executeBatch();
		}
	}

	/**
	 * What one claimed batch came to.
	 *
	 * @param claimed rows claimed
	 * @param sent rows sent
	 * @param failure the error that stopped the batch, not about its job, or null
	 */
	private record Batch(int claimed, int sent, @Nullable RuntimeException failure) {
	}

}
