package io.redeq.spring.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.function.Function;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DataSourceUtils;

import io.redeq.Job;
import io.redeq.spring.transaction.TransactionalOutbox;

/**
 * The outbox half of the journal: writes each job a transaction schedules as an
 * {@code OUTBOX} row on the transaction's own connection (found through
 * {@link DataSourceUtils}, as {@code JdbcTemplate} finds it), so the row commits or rolls
 * back with the application's data. A failed write fails the caller, and with it the
 * transaction.
 *
 * <p>
 * The row holds the job as the send after commit will schedule it: its payload as the
 * JSON the engine's codec writes, written here, on the caller's thread, from the payload
 * as it is at the call; and its own settings (timeout, attempts, priority, duplicate
 * policy), so that the relay sends the same job when that send never happens. An outbox
 * row of a job scheduled with {@code KEEP} or {@code REJECT} leaves a pending row of the
 * same id as it is (see {@link JournalDialect#upsert}).
 */
final class JdbcOutbox implements TransactionalOutbox {

	private final DataSource dataSource;

	private final String upsertSql;

	private final String discardSql;

	private final Function<Job, String> payloads;

	private final Clock clock;

	/**
	 * Creates the outbox.
	 * @param dataSource the application's database
	 * @param dialect its dialect
	 * @param table the journal table
	 * @param payloads writes a job's payload as the JSON Redis would hold (the engine's
	 * codec)
	 * @param clock the clock of journal times
	 */
	JdbcOutbox(DataSource dataSource, JournalDialect dialect, String table, Function<Job, String> payloads,
			Clock clock) {
		this.dataSource = dataSource;
		this.upsertSql = dialect.upsert(table);
		this.discardSql = "UPDATE " + table + " SET state = '" + JournalState.CANCELLED + "', updated_at = ?, "
				+ "finished_at = ? WHERE topic = ? AND id = ? AND state = '" + JournalState.OUTBOX + "'";
		this.payloads = payloads;
		this.clock = clock;
	}

	@Override
	public void write(List<Job> jobs) {
		long now = this.clock.millis();
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		try (PreparedStatement upsert = connection.prepareStatement(this.upsertSql)) {
			for (Job job : jobs) {
				String payload = (job.payload() != null) ? this.payloads.apply(job) : null;
				JournalRow.of(job, payload, dueAt(job, now), null).bindUpsert(upsert, JournalState.OUTBOX, now);
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
