package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.redeq.RedeqClient;

/**
 * Applies the cancels and reschedules that committed transactions recorded
 * ({@link JournalState#CANCELLING}, {@link JournalState#RESCHEDULING}) and whose send
 * after commit never happened: the process died between the commit and the send, or Redis
 * refused it. The outbox relay's counterpart for changes to jobs that already exist; it
 * runs with the relay, on every instance, and claims its rows the same way
 * ({@code FOR UPDATE SKIP LOCKED}, older than the grace period).
 *
 * <p>
 * Either way the row becomes pending again or finished: {@code CANCELLED} when Redis
 * cancelled the job or no longer holds it, {@code SCHEDULED} otherwise (the job had
 * started, and its outcome will be journaled as it comes; or it moved to the new due
 * time).
 */
final class OutboxChanges {

	private final DataSource dataSource;

	private final RedeqClient client;

	private final Clock clock;

	private final Duration grace;

	private final String claimSql;

	private final String cancelledSql;

	private final String scheduledSql;

	OutboxChanges(DataSource dataSource, String table, RedeqClient client, Clock clock, Duration grace, int batchSize) {
		this.dataSource = dataSource;
		this.client = client;
		this.clock = clock;
		this.grace = grace;
		this.claimSql = "SELECT topic, id, state, due_at FROM " + table + " WHERE state IN ('" + JournalState.CANCELLING
				+ "', '" + JournalState.RESCHEDULING + "') AND updated_at < ? " + "ORDER BY updated_at LIMIT "
				+ batchSize + " FOR UPDATE SKIP LOCKED";
		this.cancelledSql = "UPDATE " + table + " SET state = '" + JournalState.CANCELLED + "', updated_at = ?, "
				+ "finished_at = ? WHERE topic = ? AND id = ? AND state = ?";
		this.scheduledSql = "UPDATE " + table + " SET state = '" + JournalState.SCHEDULED + "', updated_at = ? "
				+ "WHERE topic = ? AND id = ? AND state = ?";
	}

	/**
	 * Applies one claimed batch.
	 * @return how many changes were applied
	 * @throws SQLException if the database fails
	 * @throws RuntimeException if Redis fails (the rows stay for the next run)
	 */
	int apply() throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(false);
			try {
				List<Change> changes = claim(connection);
				for (Change change : changes) {
					// A job Redis no longer holds (it ran to its end, or Redis lost it)
					// is as good as cancelled: it must not come back with a recovery.
					boolean cancelled = change.state() == JournalState.CANCELLING
							&& (this.client.cancel(change.topic(), change.id())
									|| this.client.find(change.topic(), change.id()).isEmpty());
					if (change.state() == JournalState.RESCHEDULING) {
						this.client.reschedule(change.topic(), change.id(), Instant.ofEpochMilli(change.dueAt()));
					}
					mark(connection, change, cancelled);
				}
				connection.commit();
				return changes.size();
			}
			catch (SQLException | RuntimeException ex) {
				connection.rollback();
				throw ex;
			}
		}
	}

	private List<Change> claim(Connection connection) throws SQLException {
		List<Change> changes = new ArrayList<>();
		try (PreparedStatement claim = connection.prepareStatement(this.claimSql)) {
			claim.setLong(1, this.clock.millis() - this.grace.toMillis());
			try (ResultSet rows = claim.executeQuery()) {
				while (rows.next()) {
					changes.add(new Change(rows.getString(1), rows.getString(2),
							JournalState.valueOf(rows.getString(3)), rows.getLong(4)));
				}
			}
		}
		return changes;
	}

	private void mark(Connection connection, Change change, boolean cancelled) throws SQLException {
		long now = this.clock.millis();
		if (cancelled) {
			try (PreparedStatement update = connection.prepareStatement(this.cancelledSql)) {
				update.setLong(1, now);
				update.setLong(2, now);
				update.setString(3, change.topic());
				update.setString(4, change.id());
				update.setString(5, change.state().name());
				update.executeUpdate();
			}
			return;
		}
		try (PreparedStatement update = connection.prepareStatement(this.scheduledSql)) {
			update.setLong(1, now);
			update.setString(2, change.topic());
			update.setString(3, change.id());
			update.setString(4, change.state().name());
			update.executeUpdate();
		}
	}

	private record Change(String topic, String id, JournalState state, long dueAt) {
	}

}
