package io.redeq.spring.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.ObjectMapper;

import io.redeq.RedeqClient;
import io.redeq.schedule.JobRestorer;

/**
 * Notices that Redis lost its data and sends the journal's pending jobs to it again.
 *
 * <p>
 * Detection: the {@link RedisMarker} is gone, and some of the jobs the journal holds as
 * pending ({@code SCHEDULED}, {@code RUNNING}, {@code RETRYING}) are unknown to Redis. A
 * marker missing while every sampled job is known (Redis was empty when redeq started
 * without it) only restores the marker.
 *
 * <p>
 * Recovery: every pending job Redis does not know is scheduled again, due when the
 * journal says, with {@link io.redeq.Duplicate#KEEP}: a job that still exists, or that a
 * concurrent recovery sent a moment ago, is never copied. The journal is caught up first,
 * so that a job that finished just before is not taken for pending. A recovered job keeps
 * the attempts its row counts (through the engine's internal {@link JobRestorer}): its
 * next start is the next attempt, journaled over the row as it stands, and a job whose
 * attempts are used up goes to DEAD instead of running again. A running attempt Redis
 * lost counts as used, as one whose instance died does.
 */
final class JournalRecovery {

	private static final Log logger = LogFactory.getLog(JournalRecovery.class);

	private static final int SAMPLE = 20;

	private static final int PAGE = 500;

	/** A job that was running when Redis lost it is pending too: it never finished. */
	private static final String PENDING = "state IN ('" + JournalState.SCHEDULED + "', '" + JournalState.RUNNING
			+ "', '" + JournalState.RETRYING + "')";

	private final DataSource dataSource;

	private final RedeqClient client;

	private final JobRestorer restorer;

	private final RedisMarker marker;

	private final ObjectMapper mapper;

	private final String sampleSql;

	private final String pageSql;

	private final AtomicLong recovered = new AtomicLong();

	private volatile @Nullable String lossReason;

	JournalRecovery(DataSource dataSource, String table, RedeqClient client, JobRestorer restorer, RedisMarker marker,
			ObjectMapper mapper) {
		this.dataSource = dataSource;
		this.client = client;
		this.restorer = restorer;
		this.marker = marker;
		this.mapper = mapper;
		this.sampleSql = "SELECT " + JournalRow.COLUMNS + " FROM " + table + " WHERE " + PENDING + " LIMIT " + SAMPLE;
		this.pageSql = "SELECT " + JournalRow.COLUMNS + " FROM " + table + " WHERE " + PENDING
				+ " AND (topic > ? OR (topic = ? AND id > ?)) ORDER BY topic, id LIMIT " + PAGE;
	}

	/**
	 * Why redeq believes Redis lost its data, while it has not recovered.
	 * @return the reason, or null when Redis holds what the journal expects
	 */
	@Nullable String lossReason() {
		return this.lossReason;
	}

	/**
	 * Jobs re-sent by recoveries.
	 * @return the count since start
	 */
	long recovered() {
		return this.recovered.get();
	}

	/**
	 * Checks for a loss, and records (and logs) it.
	 * @return whether Redis lost its data
	 * @throws SQLException if the journal cannot be read
	 */
	boolean detectLoss() throws SQLException {
		if (this.marker.isPresent()) {
			this.lossReason = null;
			return false;
		}
		List<JournalRow> sample = query(this.sampleSql, null);
		long unknown = sample.stream().filter((row) -> this.client.find(row.topic(), row.id()).isEmpty()).count();
		if (unknown == 0) {
			this.marker.restore();
			this.lossReason = null;
			return false;
		}
		String reason = "Redis lost its data: redeq's marker key is gone and " + unknown + " of " + sample.size()
				+ " sampled jobs pending in the journal are unknown to Redis; call RedeqAdmin.recoverFromJournal() "
				+ "or set redeq.journal.auto-recover=true";
		if (this.lossReason == null) {
			logger.warn(reason);
		}
		this.lossReason = reason;
		return true;
	}

	/**
	 * Sends every pending job Redis does not know, then restores the marker.
	 * @return how many jobs were sent
	 * @throws SQLException if the journal cannot be read
	 */
	synchronized long recover() throws SQLException {
		long sent = 0;
		String[] after = { "", "" };
		while (true) {
			List<JournalRow> page = query(this.pageSql, after);
			for (JournalRow row : page) {
				if (this.client.find(row.topic(), row.id()).isEmpty()) {
					this.restorer.restore(row.toJob(this.mapper), Math.max(0, row.attempts()), row.traceContext());
					sent++;
				}
			}
			if (page.size() < PAGE) {
				break;
			}
			JournalRow last = page.get(page.size() - 1);
			after = new String[] { last.topic(), last.id() };
		}
		this.marker.restore();
		this.lossReason = null;
		this.recovered.addAndGet(sent);
		logger.warn("redeq recovered " + sent + " job(s) from the journal that Redis no longer had");
		return sent;
	}

	private List<JournalRow> query(String sql, String @Nullable [] after) throws SQLException {
		List<JournalRow> rows = new ArrayList<>();
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			if (after != null) {
				statement.setString(1, after[0]);
				statement.setString(2, after[0]);
				statement.setString(3, after[1]);
			}
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					rows.add(JournalRow.read(result));
				}
			}
		}
		return rows;
	}

}
