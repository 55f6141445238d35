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

/**
 * Deletes the rows of jobs that finished (completed, dead, cancelled) longer than the
 * retention ago, a bounded batch per transaction so no lock is held long. Selecting keys
 * first and deleting by primary key works alike on every database ({@code DELETE ...
 * LIMIT} does not).
 */
final class JournalRetention {

	private final DataSource dataSource;

	private final Clock clock;

	private final Duration retention;

	private final int batchSize;

	private final String selectSql;

	private final String deleteSql;

	JournalRetention(DataSource dataSource, String table, Clock clock, Duration retention, int batchSize) {
		this.dataSource = dataSource;
		this.clock = clock;
		this.retention = retention;
		this.batchSize = batchSize;
		this.selectSql = "SELECT topic, id FROM " + table + " WHERE finished_at < ? LIMIT " + batchSize;
		this.deleteSql = "DELETE FROM " + table + " WHERE topic = ? AND id = ? AND finished_at < ?";
	}

	/**
	 * Deletes expired rows, for at most {@code maxBatches} batches.
	 * @param maxBatches bound on the work of one call
	 * @return how many rows were deleted
	 * @throws SQLException if the database fails
	 */
	int deleteExpired(int maxBatches) throws SQLException {
		long cutoff = this.clock.millis() - this.retention.toMillis();
		int deleted = 0;
		for (int i = 0; i < maxBatches; i++) {
			int batch = deleteBatch(cutoff);
			deleted += batch;
			if (batch < this.batchSize) {
				break;
			}
		}
		return deleted;
	}

	private int deleteBatch(long cutoff) throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(false);
			List<String[]> keys = new ArrayList<>();
			try (PreparedStatement select = connection.prepareStatement(this.selectSql)) {
				select.setLong(1, cutoff);
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						keys.add(new String[] { rows.getString(1), rows.getString(2) });
					}
				}
			}
			if (!keys.isEmpty()) {
				try (PreparedStatement delete = connection.prepareStatement(this.deleteSql)) {
					for (String[] key : keys) {
						delete.setString(1, key[0]);
						delete.setString(2, key[1]);
						delete.setLong(3, cutoff);
						delete.addBatch();
					}
					delete.executeBatch();
				}
			}
			connection.commit();
			return keys.size();
		}
	}

}
