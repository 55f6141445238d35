package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.ObjectMapper;

import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.Recurring;
import io.redeq.RedeqClient;
import io.redeq.internal.schedule.JobRestorer;
import io.redeq.spring.internal.journal.RedisMarker.State;

/**
 * Notices that Redis lost the data of some of its buckets and sends the journal's pending
 * jobs of those buckets to it again, once per loss however many instances recover.
 *
 * <p>
 * Detection: a bucket's {@link RedisMarker} is gone, and pending jobs ({@code SCHEDULED},
 * {@code RUNNING}, {@code RETRYING}) of such buckets are unknown to Redis at two checks
 * in a row with their rows unchanged (a job that finished a moment ago, its outcome not
 * yet written by some instance, is unknown at one check only). A bucket whose marker is
 * missing while none of its sampled jobs is unknown (a new bucket, a journal just turned
 * on) is only marked. A bucket whose recovery started and did not finish is lost without
 * sampling.
 *
 * <p>
 * Recovery: each lost bucket gets one loss generation, the same for every recoverer
 * ({@link RedisMarker#lossGeneration}). The pending rows of lost buckets are claimed in
 * chunks, each in one transaction that locks them ({@code SELECT ... FOR UPDATE} in
 * primary key order, so concurrent recoverers wait for each other rather than deadlock),
 * skips the rows already recovered in the bucket's generation, sends the jobs Redis does
 * not know, records the generation in the rows and commits. A recoverer that dies
 * mid-chunk rolls it back and another redoes it. Once every chunk is done the buckets are
 * marked, and later recoveries leave them alone: a job of an unharmed bucket is never
 * sent again, however recently it finished. Jobs are sent as their rows describe them
 * ({@link JournalRow#toJob}), with {@link io.redeq.Duplicate#KEEP} and the attempts the
 * row counts (through the engine's internal {@link JobRestorer}): the next start is the
 * next attempt, and a job whose attempts are used up goes to DEAD instead of running
 * again. A running attempt Redis lost counts as used, as one whose instance died does.
 *
 * <p>
 * Recurring definitions live in the buckets too: after marking buckets that had lost
 * their data (or were never marked), the application's configured recurring jobs are
 * declared again.
 *
 * <p>
 * One class because detection and recovery are one procedure over the same marker and
 * rows: a bucket found lost goes straight into its recovery, in the order above.
 */
final class JournalRecovery {

	private static final Log logger = LogFactory.getLog(JournalRecovery.class);

	/** Pending rows read to judge whether unmarked buckets lost their data. */
	private static final int SAMPLE = 200;

	/** Pending rows read at a time, without locks, to find those of lost buckets. */
	private static final int PAGE = 500;

	/** Rows claimed (locked, sent, marked) in one transaction. */
	private static final int CLAIM = 100;

	/** A claim's lock that the database broke off as a deadlock is taken again. */
	private static final int CLAIM_TRIES = 3;

	/** A job that was running when Redis lost it is pending too: it never finished. */
	private static final String PENDING = "state IN ('" + JournalState.SCHEDULED + "', '" + JournalState.RUNNING
			+ "', '" + JournalState.RETRYING + "', '" + JournalState.RESCHEDULING + "')";

	private final DataSource dataSource;

	private final String table;

	private final RedeqClient client;

	private final JobRestorer restorer;

	private final JobVersions versions;

	private final RedisMarker marker;

	private final ObjectMapper mapper;

	private final List<Recurring> recurring;

	private final String sampleSql;

	private final String pageSql;

	private final AtomicLong recovered = new AtomicLong();

	/**
	 * Jobs the latest check found pending and unknown to Redis: the next one confirms.
	 */
	private Map<String, Sampled> suspects = Map.of();

	private volatile @Nullable String lossReason;

	JournalRecovery(DataSource dataSource, String table, RedeqClient client, JobRestorer restorer, RedisMarker marker,
			ObjectMapper mapper, JobVersions versions, List<Recurring> recurring) {
		this.dataSource = dataSource;
		this.versions = versions;
		this.table = table;
		this.client = client;
		this.restorer = restorer;
		this.marker = marker;
		this.mapper = mapper;
		this.recurring = List.copyOf(recurring);
		this.sampleSql = "SELECT topic, id, state, attempts FROM " + table + " WHERE " + PENDING + " LIMIT " + SAMPLE;
		this.pageSql = "SELECT topic, id, recovered_in FROM " + table + " WHERE " + PENDING
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
	 * Checks the buckets for a loss, and records (and logs) it.
	 * @return whether Redis lost data
	 * @throws SQLException if the journal cannot be read
	 */
	synchronized boolean detectLoss() throws SQLException {
		// One bucket count for the whole check, even if the engine follows a change of it
		// meanwhile: the next check looks at the new count's markers.
		RedisMarker layout = this.marker.onCurrentLayout();
		State[] states = layout.read();
		List<Integer> unmarked = new ArrayList<>();
		int recovering = 0;
		for (int b = 0; b < states.length; b++) {
			if (states[b] != State.PRESENT) {
				unmarked.add(b);
				recovering += (states[b] == State.RECOVERING) ? 1 : 0;
			}
		}
		if (unmarked.isEmpty()) {
			noLoss();
			return false;
		}
		if (recovering > 0) {
			return lost(recovering + " of " + states.length
					+ " buckets lost their data and their recovery started but has not finished");
		}
		List<Sampled> confirmed = unknown(inBuckets(reread(this.suspects.values()), unmarked, layout));
		if (!confirmed.isEmpty()) {
			this.suspects = byKey(confirmed);
			return lost(unmarked.size() + " of " + states.length + " buckets lost redeq's marker and "
					+ confirmed.size() + " jobs of theirs pending in the journal are unknown to Redis");
		}
		List<Sampled> sample = sample(unmarked, layout);
		List<Sampled> unknown = unknown(sample);
		this.suspects = byKey(unknown);
		if (unknown.isEmpty()) {
			// New buckets (a journal just turned on, or a new bucket count the engine
			// follows now): nothing lost, only unmarked.
			unmarked.forEach(layout::markUnharmed);
			declareRecurring();
			noLoss();
		}
		// Unknown jobs are confirmed (or not) by the next check.
		return this.lossReason != null;
	}

	private void noLoss() {
		this.suspects = Map.of();
		this.lossReason = null;
	}

	private boolean lost(String what) {
		String reason = "Redis lost its data: " + what
				+ "; call RedeqAdmin.recoverFromJournal() or set redeq.journal.auto-recover=true";
		if (this.lossReason == null) {
			logger.warn(reason);
		}
		this.lossReason = reason;
		return true;
	}

	/**
	 * Sends every pending job of the buckets that lost their data that Redis does not
	 * know, then marks those buckets. Buckets whose marker is present are not touched.
	 * @return how many jobs this call sent
	 * @throws SQLException if the journal cannot be read or written
	 */
	synchronized long recover() throws SQLException {
		RedisMarker layout = this.marker.onCurrentLayout();
		State[] states = layout.read();
		String candidate = UUID.randomUUID().toString();
		String[] generations = new String[states.length];
		List<Integer> lost = new ArrayList<>();
		for (int b = 0; b < states.length; b++) {
			if (states[b] != State.PRESENT) {
				generations[b] = layout.lossGeneration(b, candidate);
				if (generations[b] != null) {
					lost.add(b);
				}
			}
		}
		if (lost.isEmpty()) {
			noLoss();
			return 0;
		}
		long sent = recoverRows(new Generations(layout, generations));
		int marked = 0;
		for (int b : lost) {
			marked += layout.markRecovered(b, generations[b]) ? 1 : 0;
		}
		this.recovered.addAndGet(sent);
		declareRecurring();
		logger.warn("redeq recovered " + sent + " job(s) from the journal that Redis no longer had, in " + lost.size()
				+ " of " + states.length + " buckets");
		if (marked == lost.size()) {
			noLoss();
		}
		else {
			lost((lost.size() - marked) + " buckets lost their data again during their recovery");
		}
		return sent;
	}

	/** Pages through the pending rows and claims those of lost buckets not yet done. */
	private long recoverRows(Generations generations) throws SQLException {
		long sent = 0;
		String[] after = { "", "" };
		while (true) {
			List<String[]> page = new ArrayList<>();
			List<String[]> todo = new ArrayList<>();
			try (Connection connection = this.dataSource.getConnection();
					PreparedStatement statement = connection.prepareStatement(this.pageSql)) {
				statement.setString(1, after[0]);
				statement.setString(2, after[0]);
				statement.setString(3, after[1]);
				try (ResultSet rows = statement.executeQuery()) {
					while (rows.next()) {
						String[] key = { rows.getString(1), rows.getString(2) };
						page.add(key);
						String generation = generations.of(key[0], key[1]);
						if (generation != null && !generation.equals(rows.getString(3))) {
							todo.add(key);
						}
					}
				}
			}
			for (int from = 0; from < todo.size(); from += CLAIM) {
				sent += claim(todo.subList(from, Math.min(todo.size(), from + CLAIM)), generations);
			}
			if (page.size() < PAGE) {
				return sent;
			}
			after = page.get(page.size() - 1);
		}
	}

	/**
	 * Locks the rows, sends those still pending, not recovered in their bucket's
	 * generation and unknown to Redis, records the generation in them, and commits.
	 */
	private long claim(List<String[]> keys, Generations generations) throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			connection.setAutoCommit(false);
			try {
				List<Claimed> claimed = lock(connection, keys, generations);
				long sent = send(claimed);
				markRows(connection, claimed);
				connection.commit();
				return sent;
			}
			catch (SQLException | RuntimeException ex) {
				connection.rollback();
				throw ex;
			}
			finally {
				connection.setAutoCommit(autoCommit);
			}
		}
	}

	private List<Claimed> lock(Connection connection, List<String[]> keys, Generations generations)
			throws SQLException {
		StringBuilder sql = new StringBuilder("SELECT ").append(JournalRow.COLUMNS)
			.append(", recovered_in FROM ")
			.append(this.table)
			.append(" WHERE ")
			.append(PENDING)
			.append(" AND (");
		for (int i = 0; i < keys.size(); i++) {
			sql.append((i > 0) ? " OR " : "").append("(topic = ? AND id = ?)");
		}
		// Primary key order: concurrent recoverers lock in the same order, so they queue.
		sql.append(") ORDER BY topic, id FOR UPDATE");
		for (int tries = 1;; tries++) {
			try (PreparedStatement statement = connection.prepareStatement(sql.toString())) {
				for (int i = 0; i < keys.size(); i++) {
					statement.setString(2 * i + 1, keys.get(i)[0]);
					statement.setString(2 * i + 2, keys.get(i)[1]);
				}
				List<Claimed> claimed = new ArrayList<>();
				try (ResultSet rows = statement.executeQuery()) {
					while (rows.next()) {
						JournalRow row = JournalRow.read(rows);
						String generation = generations.of(row.topic(), row.id());
						if (generation != null && !generation.equals(rows.getString("recovered_in"))) {
							claimed.add(new Claimed(row, generation));
						}
					}
				}
				return claimed;
			}
			catch (SQLException ex) {
				// Nothing was sent yet: a lock the database broke off (a deadlock with a
				// journal writer's batch) is simply taken again.
				if (tries >= CLAIM_TRIES || !isTransient(ex)) {
					throw ex;
				}
				connection.rollback();
			}
		}
	}

	private static boolean isTransient(SQLException ex) {
		String state = ex.getSQLState();
		return state != null && state.startsWith("40");
	}

	/** Asks Redis about all the claimed jobs at once, then sends those it lacks. */
	private long send(List<Claimed> claimed) {
		List<CompletableFuture<Optional<JobInfo>>> finds = new ArrayList<>(claimed.size());
		for (Claimed one : claimed) {
			finds.add(this.client.async().find(one.row().topic(), one.row().id()));
		}
		long sent = 0;
		for (int i = 0; i < claimed.size(); i++) {
			if (join(finds.get(i)).isEmpty()) {
				JournalRow row = claimed.get(i).row();
				// As the version of its row: the outcomes of the restored job
				// finish that row.
				Job job = row.toJob(this.mapper);
				this.versions.sending(job, row.version(), row.traceContext(),
						() -> this.restorer.restore(job, Math.max(0, row.attempts()), row.traceContext()));
				sent++;
			}
		}
		return sent;
	}

	private void markRows(Connection connection, List<Claimed> claimed) throws SQLException {
		if (claimed.isEmpty()) {
			return;
		}
		try (PreparedStatement update = connection
			.prepareStatement("UPDATE " + this.table + " SET recovered_in = ? WHERE topic = ? AND id = ?")) {
			for (Claimed one : claimed) {
				update.setString(1, one.generation());
				update.setString(2, one.row().topic());
				update.setString(3, one.row().id());
				update.addBatch();
			}
			update.executeBatch();
		}
	}

	/**
	 * Declares the application's recurring jobs again; declaring one that exists changes
	 * nothing.
	 */
	private void declareRecurring() {
		for (Recurring job : this.recurring) {
			try {
				this.client.scheduleRecurring(job);
			}
			catch (RuntimeException ex) {
				logger.warn("redeq could not declare recurring job '" + job.id() + "' of topic '" + job.topic()
						+ "' again after Redis lost its data (the next startup declares it): " + ex.getMessage());
			}
		}
	}

	/**
	 * Up to {@link #SAMPLE} pending rows, those of the given buckets of {@code layout}.
	 */
	private List<Sampled> sample(List<Integer> buckets, RedisMarker layout) throws SQLException {
		List<Sampled> sample = new ArrayList<>();
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(this.sampleSql);
				ResultSet rows = statement.executeQuery()) {
			while (rows.next()) {
				sample.add(Sampled.read(rows));
			}
		}
		return inBuckets(sample, buckets, layout);
	}

	private static List<Sampled> inBuckets(List<Sampled> rows, List<Integer> buckets, RedisMarker layout) {
		boolean[] wanted = new boolean[layout.buckets()];
		buckets.forEach((b) -> wanted[b] = true);
		return rows.stream().filter((row) -> wanted[layout.bucketOf(row.topic(), row.id())]).toList();
	}

	/** The suspects whose rows are still pending and unchanged. */
	private List<Sampled> reread(Collection<Sampled> suspects) throws SQLException {
		if (suspects.isEmpty()) {
			return List.of();
		}
		List<Sampled> rows = new ArrayList<>(suspects);
		StringBuilder sql = new StringBuilder("SELECT topic, id, state, attempts FROM ").append(this.table)
			.append(" WHERE ")
			.append(PENDING)
			.append(" AND (");
		for (int i = 0; i < rows.size(); i++) {
			sql.append((i > 0) ? " OR " : "").append("(topic = ? AND id = ?)");
		}
		sql.append(")");
		List<Sampled> unchanged = new ArrayList<>();
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql.toString())) {
			for (int i = 0; i < rows.size(); i++) {
				statement.setString(2 * i + 1, rows.get(i).topic());
				statement.setString(2 * i + 2, rows.get(i).id());
			}
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					Sampled now = Sampled.read(result);
					if (now.equals(this.suspects.get(now.key()))) {
						unchanged.add(now);
					}
				}
			}
		}
		return unchanged;
	}

	/** The jobs Redis does not know, asked all at once. */
	private List<Sampled> unknown(List<Sampled> rows) {
		List<CompletableFuture<Optional<JobInfo>>> finds = new ArrayList<>(rows.size());
		for (Sampled row : rows) {
			finds.add(this.client.async().find(row.topic(), row.id()));
		}
		List<Sampled> unknown = new ArrayList<>();
		for (int i = 0; i < rows.size(); i++) {
			if (join(finds.get(i)).isEmpty()) {
				unknown.add(rows.get(i));
			}
		}
		return unknown;
	}

	private static Map<String, Sampled> byKey(List<Sampled> rows) {
		Map<String, Sampled> map = new HashMap<>();
		rows.forEach((row) -> map.put(row.key(), row));
		return Collections.unmodifiableMap(map);
	}

	private static <T> T join(CompletableFuture<T> future) {
		try {
			return future.join();
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof RuntimeException cause) {
				throw cause;
			}
			throw ex;
		}
	}

	/** A pending row as a check sees it: unchanged when state and attempts are. */
	private record Sampled(String topic, String id, String state, int attempts) {

		static Sampled read(ResultSet rows) throws SQLException {
			return new Sampled(rows.getString(1), rows.getString(2), rows.getString(3), rows.getInt(4));
		}

		String key() {
			return this.topic + ":" + this.id;
		}

	}

	/** A locked row to recover in its bucket's loss generation. */
	private record Claimed(JournalRow row, String generation) {
	}

	/**
	 * The loss generation of each bucket of one layout that is being recovered, null for
	 * a bucket that is not.
	 */
	private record Generations(RedisMarker layout, @Nullable String[] byBucket) {

		@Nullable String of(String topic, String id) {
			return this.byBucket[this.layout.bucketOf(topic, id)];
		}

	}

}
