package io.redeq.spring.journal;

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
import tools.jackson.databind.ObjectMapper;

import io.redeq.CapacityExceededException;
import io.redeq.DuplicateJobException;
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
 */
final class OutboxRelay {

	private static final Log logger = LogFactory.getLog(OutboxRelay.class);

	private final DataSource dataSource;

	private final RedeqClient client;

	private final ObjectMapper mapper;

	private final Clock clock;

	private final Duration grace;

	private final int batchSize;

	private final String claimSql;

	private final String sentSql;

	private final String refusedSql;

	OutboxRelay(DataSource dataSource, String table, RedeqClient client, ObjectMapper mapper, Clock clock,
			Duration grace, int batchSize) {
		this.dataSource = dataSource;
		this.client = client;
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
	}

	/**
	 * Sends every unsent row older than the grace period, one claimed batch per
	 * transaction, for at most {@code maxBatches} batches.
	 * @param maxBatches bound on the work of one call
	 * @return how many rows were sent
	 * @throws SQLException if the database fails
	 * @throws RuntimeException if Redis refuses a send (the claimed rows stay unsent)
	 */
	int relay(int maxBatches) throws SQLException {
		int sent = 0;
		for (int i = 0; i < maxBatches; i++) {
			int batch = relayBatch();
			sent += batch;
			if (batch < this.batchSize) {
				break;
			}
		}
		return sent;
	}

	private int relayBatch() throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(false);
			try {
				List<JournalRow> rows = claim(connection);
				if (!rows.isEmpty()) {
					// While the rows are locked: another relay skips them, and a crash
					// here leaves them unsent for the next one.
					try {
						this.client.scheduleAll(rows.stream().map((row) -> row.toRelayedJob(this.mapper)).toList());
						markSent(connection, rows);
					}
					catch (RedeqUnavailableException ex) {
						throw ex;
					}
					catch (RuntimeException ex) {
						sendOneByOne(connection, rows);
					}
				}
				connection.commit();
				return rows.size();
			}
			catch (SQLException | RuntimeException ex) {
				connection.rollback();
				throw ex;
			}
		}
	}

	/**
	 * One job of the batch was refused. Sends them one at a time, so that the others go
	 * out; a job Redis refuses for good (its payload is too large, say) is marked DEAD
	 * with the reason, so that it does not come back on every run. A full queue
	 * ({@link CapacityExceededException}) is not for good: that row waits for the next
	 * run.
	 */
	private void sendOneByOne(Connection connection, List<JournalRow> rows) throws SQLException {
		List<JournalRow> sent = new ArrayList<>();
		for (JournalRow row : rows) {
			try {
				this.client.schedule(row.toRelayedJob(this.mapper));
				sent.add(row);
			}
			catch (RedeqUnavailableException ex) {
				throw ex;
			}
			catch (CapacityExceededException | DuplicateJobException ex) {
				// A full queue, or a REPLACE that met a job of the same id while it runs:
				// neither is for good, the row waits for the next run.
				logger.warn("redeq journal could not relay job '" + row.id() + "' of topic '" + row.topic() + "' yet: "
						+ ex.getMessage());
			}
			catch (RuntimeException ex) {
				logger.error("redeq journal gives up relaying job '" + row.id() + "' of topic '" + row.topic()
						+ "', which Redis refuses; its row is marked DEAD: " + ex.getMessage());
				markRefused(connection, row, ex);
			}
		}
		markSent(connection, sent);
	}

	private void markRefused(Connection connection, JournalRow row, RuntimeException error) throws SQLException {
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

}
