package io.redeq.spring.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.util.List;

import javax.sql.DataSource;

import tools.jackson.databind.ObjectMapper;

import org.springframework.jdbc.datasource.DataSourceUtils;

import io.redeq.Job;
import io.redeq.spring.transaction.TransactionalOutbox;

/**
 * The outbox half of the journal: writes each job a transaction schedules as an
 * {@code OUTBOX} row on the transaction's own connection (found through
 * {@link DataSourceUtils}, as {@code JdbcTemplate} finds it), so the row commits or rolls
 * back with the application's data. A failed write fails the caller, and with it the
 * transaction.
 */
final class JdbcOutbox implements TransactionalOutbox {

	private final DataSource dataSource;

	private final String upsertSql;

	private final String discardSql;

	private final ObjectMapper mapper;

	private final Clock clock;

	JdbcOutbox(DataSource dataSource, JournalDialect dialect, String table, ObjectMapper mapper, Clock clock) {
		this.dataSource = dataSource;
		this.upsertSql = dialect.upsert(table);
		this.discardSql = "UPDATE " + table + " SET state = '" + JournalState.CANCELLED + "', updated_at = ?, "
				+ "finished_at = ? WHERE topic = ? AND id = ? AND state = '" + JournalState.OUTBOX + "'";
		this.mapper = mapper;
		this.clock = clock;
	}

	@Override
	public void write(List<Job> jobs) {
		long now = this.clock.millis();
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		try (PreparedStatement upsert = connection.prepareStatement(this.upsertSql)) {
			for (Job job : jobs) {
				upsert.setString(1, job.topic());
				upsert.setString(2, job.id());
				upsert.setString(3, JournalState.OUTBOX.name());
				if (job.payload() == null) {
					upsert.setNull(4, Types.VARCHAR);
				}
				else {
					upsert.setString(4, this.mapper.writeValueAsString(job.payload()));
				}
				upsert.setLong(5, dueAt(job, now));
				upsert.setLong(6, now);
				upsert.setLong(7, now);
				upsert.addBatch();
			}
			upsert.executeBatch();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("redeq journal could not write " + jobs.size()
					+ " job(s) to its outbox in the current transaction: " + ex.getMessage(), ex);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

	@Override
	public void discard(String topic, String id) {
		long now = this.clock.millis();
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		try (PreparedStatement discard = connection.prepareStatement(this.discardSql)) {
			discard.setLong(1, now);
			discard.setLong(2, now);
			discard.setString(3, topic);
			discard.setString(4, id);
			discard.executeUpdate();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("redeq journal could not mark job '" + id + "' of topic '" + topic
					+ "' cancelled in its outbox: " + ex.getMessage(), ex);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

	/** The due time as the outbox knows it: a delay counts from the call. */
	static long dueAt(Job job, long now) {
		if (job.dueAt() != null) {
			return job.dueAt().toEpochMilli();
		}
		return (job.delay() != null) ? now + job.delay().toMillis() : now;
	}

}
