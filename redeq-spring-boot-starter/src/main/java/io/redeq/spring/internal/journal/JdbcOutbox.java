package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.redeq.Job;
import io.redeq.spring.internal.transaction.TransactionalOutbox;

/**
 * The outbox half of the journal: writes what a transaction changed (the jobs it
 * schedules as {@code OUTBOX} rows, the cancel or new due time of jobs scheduled before
 * it) on the transaction's own connection, found the way {@code JdbcTemplate} finds it,
 * so the rows commit or roll back with the application's data. A failed write fails the
 * commit, and with it the transaction.
 *
 * <p>
 * A transaction that does not include the journal's {@code DataSource} (a Kafka or JTA
 * transaction manager over another resource) or that is read-only cannot carry the rows.
 * Then they are written on a connection of their own just before that transaction
 * commits, and marked {@code CANCELLED} if it rolls back after all: the job survives a
 * crash after the commit, and a transaction that rolls back sends nothing, except when
 * the process dies between that late rollback and the mark.
 *
 * <p>
 * A row holds the job as the send after commit will schedule it: its payload as the JSON
 * the engine's codec writes, and its own settings (timeout, attempts, priority, duplicate
 * policy), so that the relay sends the same job when that send never happens. An outbox
 * row of a job scheduled with {@code KEEP} or {@code REJECT} leaves a pending row of the
 * same id as it is (see {@link JournalDialect#upsert}).
 */
final class JdbcOutbox implements TransactionalOutbox {

	private static final Log logger = LogFactory.getLog(JdbcOutbox.class);

	private final DataSource dataSource;

	private final String upsertSql;

	private final String discardSql;

	private final String cancelSql;

	private final String rescheduleSql;

	private final Function<Job, String> payloads;

	private final JobVersions versions;

	private final BiFunction<String, String, @Nullable String> traceContexts;

	private final Clock clock;

	private volatile boolean warnedOwnConnection;

	/**
	 * Creates the outbox.
	 * @param dataSource the application's database
	 * @param dialect its dialect
	 * @param table the journal table
	 * @param payloads writes a job's payload as the JSON Redis would hold (the engine's
	 * codec)
	 * @param traceContexts observes the scheduling of a job at the outbox write, where
	 * the caller's trace is current, and gives the trace context to send it with
	 * @param versions where each job's version waits for its send after commit
	 * @param clock the clock of journal times
	 */
	JdbcOutbox(DataSource dataSource, JournalDialect dialect, String table, Function<Job, String> payloads,
			BiFunction<String, String, @Nullable String> traceContexts, JobVersions versions, Clock clock) {
		this.dataSource = dataSource;
		this.traceContexts = traceContexts;
		this.versions = versions;
		this.upsertSql = dialect.upsert(table);
		this.discardSql = "UPDATE " + table + " SET state = '" + JournalState.CANCELLED + "', updated_at = ?, "
				+ "finished_at = ? WHERE topic = ? AND id = ? AND state = '" + JournalState.OUTBOX + "'";
		// Only over a row still pending: a job that finished before the commit stays
		// as it ended.
		this.cancelSql = "UPDATE " + table + " SET state = '" + JournalState.CANCELLING + "', updated_at = ? "
				+ "WHERE topic = ? AND id = ? AND finished_at IS NULL";
		// An outbox row not sent yet stays one, with the new due time: the relay sends it
		// so. Marked RESCHEDULING, the relay would skip it, and Redis would never get it.
		this.rescheduleSql = "UPDATE " + table + " SET state = CASE WHEN state = '" + JournalState.OUTBOX
				+ "' THEN state ELSE '" + JournalState.RESCHEDULING + "' END, due_at = ?, updated_at = ? "
				+ "WHERE topic = ? AND id = ? AND finished_at IS NULL";
		this.payloads = payloads;
		this.clock = clock;
	}

	/**
	 * Writes each job's row with a new version, which the send after commit uses (the
	 * same {@link Job} instances are sent): the row and the job Redis stores name the
	 * same version. The versions are forgotten when the transaction completes, sent or
	 * not.
	 */
	@Override
	public void write(List<Job> jobs) {
		long now = this.clock.millis();
		List<Job> versioned = new ArrayList<>(jobs.size());
		inTransaction("write " + jobs.size() + " job(s) to its outbox", (connection) -> {
			try (PreparedStatement upsert = connection.prepareStatement(this.upsertSql)) {
				for (Job job : jobs) {
					String payload = (job.payload() != null) ? this.payloads.apply(job) : null;
					String version = JobVersions.next();
					String traceContext = this.traceContexts.apply(job.topic(), String.valueOf(job.id()));
					JournalRow.of(job, payload, dueAt(job, now), traceContext, version)
						.bindUpsert(upsert, JournalState.OUTBOX, now);
					upsert.addBatch();
					this.versions.assign(job, version, traceContext);
					versioned.add(job);
				}
				upsert.executeBatch();
			}
		}, jobs);
		forgetAtCompletion(versioned);
	}

	private void forgetAtCompletion(List<Job> jobs) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			// No send after commit to wait for: nothing keeps the instances.
			this.versions.forget(jobs);
			return;
		}
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
			@Override
			public void afterCompletion(int status) {
				JdbcOutbox.this.versions.forget(jobs);
			}
		});
	}

	@Override
	public void cancel(String topic, String id) {
		long now = this.clock.millis();
		inTransaction("record the cancel of job '" + id + "' of topic '" + topic + "'", (connection) -> {
			try (PreparedStatement cancel = connection.prepareStatement(this.cancelSql)) {
				cancel.setLong(1, now);
				cancel.setString(2, topic);
				cancel.setString(3, id);
				cancel.executeUpdate();
			}
		}, List.of());
	}

	@Override
	public void reschedule(String topic, String id, Instant dueAt) {
		long now = this.clock.millis();
		inTransaction("record the new due time of job '" + id + "' of topic '" + topic + "'", (connection) -> {
			try (PreparedStatement reschedule = connection.prepareStatement(this.rescheduleSql)) {
				reschedule.setLong(1, dueAt.toEpochMilli());
				reschedule.setLong(2, now);
				reschedule.setString(3, topic);
				reschedule.setString(4, id);
				reschedule.executeUpdate();
			}
		}, List.of());
	}

	@Override
	public void discard(String topic, String id) {
		long now = this.clock.millis();
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement discard = connection.prepareStatement(this.discardSql)) {
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
	}

	/**
	 * Runs {@code work} on the current transaction's connection when that transaction
	 * carries the journal's {@code DataSource}; otherwise on a connection of its own,
	 * committed at once, and {@code written} are discarded again if the transaction rolls
	 * back.
	 */
	private void inTransaction(String what, SqlWork work, List<Job> written) {
		Connection shared = transactionalConnection();
		try {
			if (shared != null) {
				try {
					work.run(shared);
				}
				finally {
					DataSourceUtils.releaseConnection(shared, this.dataSource);
				}
				return;
			}
			warnOwnConnectionOnce();
			try (Connection own = this.dataSource.getConnection()) {
				own.setAutoCommit(true);
				work.run(own);
			}
			if (!written.isEmpty() && TransactionSynchronizationManager.isSynchronizationActive()) {
				TransactionSynchronizationManager.registerSynchronization(new DiscardOnRollback(written));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(
					"redeq journal could not " + what + " in the current transaction: " + ex.getMessage(), ex);
		}
	}

	/**
	 * The current transaction's connection to the journal's database, or null when the
	 * transaction does not hold one (another resource's transaction manager) or cannot
	 * write with it (read-only, or a connection in auto-commit that would commit each row
	 * on its own).
	 */
	private @Nullable Connection transactionalConnection() {
		if (!TransactionSynchronizationManager.isActualTransactionActive()
				|| TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
			return null;
		}
		if (!(TransactionSynchronizationManager.getResource(this.dataSource) instanceof ConnectionHolder)) {
			return null;
		}
		try {
			Connection connection = DataSourceUtils.getConnection(this.dataSource);
			if (connection.getAutoCommit() || connection.isReadOnly()) {
				DataSourceUtils.releaseConnection(connection, this.dataSource);
				return null;
			}
			return connection;
		}
		catch (SQLException ex) {
			return null;
		}
	}

	private void warnOwnConnectionOnce() {
		if (!this.warnedOwnConnection) {
			this.warnedOwnConnection = true;
			logger.info("redeq journal writes its outbox rows on a connection of its own: the current transaction "
					+ (TransactionSynchronizationManager.isCurrentTransactionReadOnly() ? "is read-only"
							: "does not include the journal's DataSource")
					+ ". Its rows are committed just before that transaction and cancelled if it rolls back.");
		}
	}

	/** The due time as the outbox knows it: a delay counts from the call. */
	static long dueAt(Job job, long now) {
		if (job.dueAt() != null) {
			return job.dueAt().toEpochMilli();
		}
		return (job.delay() != null) ? now + job.delay().toMillis() : now;
	}

	@FunctionalInterface
	private interface SqlWork {

		void run(Connection connection) throws SQLException;

	}

	/** Marks rows written outside a transaction cancelled when it rolls back. */
	private final class DiscardOnRollback implements TransactionSynchronization {

		private final List<Job> jobs;

		DiscardOnRollback(List<Job> jobs) {
			this.jobs = jobs;
		}

		@Override
		public void afterCompletion(int status) {
			if (status == STATUS_COMMITTED) {
				return;
			}
			for (Job job : this.jobs) {
				try {
					discard(job.topic(), String.valueOf(job.id()));
				}
				catch (RuntimeException ex) {
					logger.error("redeq journal could not mark the outbox row of job '" + job.id() + "' of topic '"
							+ job.topic() + "' cancelled after its transaction rolled back; the relay will send it: "
							+ ex.getMessage(), ex);
				}
			}
		}

	}

}
