package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.RedeqClient;

/**
 * Finds the jobs Redis buried with no outcome event on any instance, and journals them
 * DEAD. A job whose last attempt's lease expired (its instance crashed, was paused or
 * hung) goes back to READY inside the engine's scripts, and the next claim, on whichever
 * instance, moves it to DEAD when its attempts are used up: no listener hears of it, and
 * its row would stay {@code RUNNING}, pending for ever, and a recovery would run it
 * again.
 *
 * <p>
 * Every run looks at rows {@code RUNNING} for longer than {@code staleAfter} (a bounded
 * page, oldest first) and asks Redis for each job ({@link RedeqClient#find}); one Redis
 * holds DEAD at that attempt or a later one is journaled DEAD through the writer, whose
 * ordering rules make it harmless when the real outcome arrives too. A job still
 * IN_FLIGHT (a long handler) is asked again later, after a pause that doubles up to
 * {@link #MAX_PAUSE}. Nothing is asked on the path of a job: only rows already stale. A
 * job Redis does not hold is left alone (it completed and its event is still on its way
 * or was lost, or Redis lost it: the recovery's matter).
 */
final class JournalReconciler {

	static final Duration MAX_PAUSE = Duration.ofMinutes(10);

	private static final int MAX_REMEMBERED = 10_000;

	static final String REASON = "attempts used up: the lease of its last attempt expired without an outcome "
			+ "(its instance crashed, was paused or hung); found DEAD in Redis";

	private final DataSource dataSource;

	private final RedeqClient client;

	private final JournalWriter writer;

	private final Clock clock;

	private final Duration staleAfter;

	private final String selectSql;

	/** Jobs found IN_FLIGHT: when to ask again, and the pause before that. */
	private final Map<String, long[]> inFlight = new HashMap<>();

	private final AtomicLong reconciled = new AtomicLong();

	JournalReconciler(DataSource dataSource, String table, RedeqClient client, JournalWriter writer, Clock clock,
			Duration staleAfter, int batchSize) {
		this.dataSource = dataSource;
		this.client = client;
		this.writer = writer;
		this.clock = clock;
		this.staleAfter = staleAfter;
		this.selectSql = "SELECT topic, id, attempts, job_version FROM " + table + " WHERE state = '"
				+ JournalState.RUNNING + "' AND updated_at < ? ORDER BY updated_at LIMIT " + batchSize;
	}

	/**
	 * Jobs journaled DEAD by this reconciler.
	 * @return the count since start
	 */
	long reconciled() {
		return this.reconciled.get();
	}

	/**
	 * One run.
	 * @return how many jobs were found buried and journaled DEAD
	 * @throws SQLException if the journal cannot be read
	 */
	synchronized int reconcile() throws SQLException {
		long now = this.clock.millis();
		int found = 0;
		for (Running row : staleRunning(now - this.staleAfter.toMillis())) {
			String key = row.topic() + '\u0000' + row.id();
			long[] later = this.inFlight.get(key);
			if (later != null && now < later[0]) {
				continue;
			}
			Optional<JobInfo> info = this.client.find(row.topic(), row.id());
			if (info.isPresent() && info.get().state() == JobState.IN_FLIGHT) {
				long pause = (later != null) ? Math.min(later[1] * 2, MAX_PAUSE.toMillis())
						: this.staleAfter.toMillis();
				if (this.inFlight.size() >= MAX_REMEMBERED) {
					this.inFlight.clear();
				}
				this.inFlight.put(key, new long[] { now + pause, pause });
				continue;
			}
			this.inFlight.remove(key);
			if (info.isPresent() && info.get().state() == JobState.DEAD && info.get().attempts() >= row.attempts()) {
				// For the version of the row it looked at: were the row replaced
				// meanwhile by an outbox row of a new version, this must not
				// finish that one.
				this.writer.offer(new JournalEvent.Changed(row.topic(), row.id(), JournalState.DEAD,
						info.get().attempts(), null, REASON, now, row.version()));
				found++;
			}
		}
		this.reconciled.addAndGet(found);
		return found;
	}

	private List<Running> staleRunning(long before) throws SQLException {
		List<Running> rows = new ArrayList<>();
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement select = connection.prepareStatement(this.selectSql)) {
			select.setLong(1, before);
			try (ResultSet result = select.executeQuery()) {
				while (result.next()) {
					rows.add(new Running(result.getString(1), result.getString(2), result.getInt(3),
							result.getString(4)));
				}
			}
		}
		return rows;
	}

	private record Running(String topic, String id, int attempts, @Nullable String version) {
	}

}
