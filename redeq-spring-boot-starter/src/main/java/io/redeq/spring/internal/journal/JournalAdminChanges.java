package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Records in the journal what an operator changed through {@link io.redeq.RedeqAdmin}
 * (the dashboard, the actuator endpoint, the application's own calls): a job made due
 * now, a dead job given a fresh set of attempts, waiting jobs deleted by a purge. Without
 * it the journal would still hold the old due time, or the job as DEAD, and a recovery
 * would send it back as it was.
 *
 * <p>
 * Written at once, on a connection of its own, after the writer caught up: the operator's
 * change must land after the events queued before it (the job's death, say), not be
 * overwritten by them. Operators change few jobs, so the wait is no burden.
 */
final class JournalAdminChanges {

	private static final Log logger = LogFactory.getLog(JournalAdminChanges.class);

	private static final Duration CATCH_UP = Duration.ofSeconds(5);

	private final DataSource dataSource;

	private final JournalWriter writer;

	private final Clock clock;

	private final String promotedSql;

	private final String requeuedSql;

	JournalAdminChanges(DataSource dataSource, String table, JournalWriter writer, Clock clock) {
		this.dataSource = dataSource;
		this.writer = writer;
		this.clock = clock;
		this.promotedSql = "UPDATE " + table + " SET due_at = ?, updated_at = ? WHERE topic = ? AND id = ? "
				+ "AND finished_at IS NULL";
		this.requeuedSql = "UPDATE " + table + " SET state = '" + JournalState.SCHEDULED + "', attempts = 0, "
				+ "due_at = ?, last_error = NULL, updated_at = ?, finished_at = NULL WHERE topic = ? AND id = ? "
				+ "AND state = '" + JournalState.DEAD + "'";
	}

	/** Lets the writer write what was queued before an operator's change. */
	void catchUp() {
		if (!this.writer.flush(CATCH_UP)) {
			logger.warn("redeq journal is " + this.writer.lag() + " event(s) behind while recording an operator's "
					+ "change; a late event may overwrite it: " + this.writer.lastError());
		}
	}

	/** A waiting job was made due now. */
	void promoted(String topic, String id) {
		update(this.promotedSql, topic, id, "due now");
	}

	/** A dead job got a fresh set of attempts and is due now. */
	void requeued(String topic, String id) {
		update(this.requeuedSql, topic, id, "requeued");
	}

	/**
	 * Waiting jobs were deleted by a purge: each is journaled as cancelled through the
	 * writer, as a cancel is, and the purge waits for the writer to catch up before its
	 * next step, so that a purge of a million jobs never outruns the writer's buffer.
	 */
	void cancelled(String topic, List<String> ids) {
		long now = this.clock.millis();
		for (String id : ids) {
			this.writer.offer(new JournalEvent.Changed(topic, id, JournalState.CANCELLED, null, null, null, now));
		}
		catchUp();
	}

	private void update(String sql, String topic, String id, String what) {
		long now = this.clock.millis();
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement update = connection.prepareStatement(sql)) {
			update.setLong(1, now);
			update.setLong(2, now);
			update.setString(3, topic);
			update.setString(4, id);
			update.executeUpdate();
		}
		catch (SQLException ex) {
			// Redis holds the change; only the journal misses it. Say so, do not fail
			// the operator's action that succeeded.
			logger.error("redeq journal could not record job '" + id + "' of topic '" + topic + "' as " + what
					+ "; a recovery from the journal would send it as it was before: " + ex.getMessage(), ex);
		}
	}

}
