package io.redeq.spring.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.redeq.JobLifecycleListener;

/**
 * Writes journal events to the database in batches, on its own thread, so that neither a
 * scheduling caller nor a worker ever waits for the database.
 *
 * <p>
 * The buffer is bounded: when the database is slow or down, events wait in memory (the
 * batch in hand is retried until it is written) and the {@link #lag() lag} grows; Redis
 * is not involved, so no job is lost or delayed. Once the buffer is full, new events are
 * dropped and {@link #dropped() counted}: the journal then misses those steps (an outbox
 * row whose "sent" mark was dropped is sent again by the relay, which Redis ignores for a
 * job it still holds).
 *
 * <p>
 * Order: the events of one writer are written in the order they were queued, but a job's
 * steps can still arrive out of order (an outcome queued before the job's "scheduled"
 * event, another instance's writer lagging). Two rules keep the row right: an insert
 * never replaces a row that finished after it ({@link JournalDialect#upsert}), and a
 * {@link JournalState#RUNNING} event never replaces a finished row, nor a failure or
 * start of the same or a later attempt (the condition of its update).
 */
public final class JournalWriter {

	private static final Log logger = LogFactory.getLog(JournalWriter.class);

	private static final int MAX_ERROR_LENGTH = 1000;

	/** How many batches an update of a row not written yet waits for that row. */
	private static final int ROW_WAITS = 3;

	private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

	private final DataSource dataSource;

	private final String upsertSql;

	private final String updateSql;

	/**
	 * The start of attempt n, written only over a row still pending whose latest step is
	 * older: not over COMPLETED, DEAD or CANCELLED, not over RETRYING of attempt n or
	 * later, not over RUNNING of a later attempt. So a start that arrives late never
	 * hides the outcome that followed it.
	 */
	private final String runningSql;

	private final int batchSize;

	private final BlockingQueue<JournalEvent> queue;

	private final AtomicLong dropped = new AtomicLong();

	private final AtomicLong written = new AtomicLong();

	/** Updates that found no row yet, retried with later batches. */
	private final List<Waiting> waiting = new ArrayList<>();

	/**
	 * Events queued and not yet written (or given up at stop): counted from the offer, so
	 * that an event the writer thread has taken off the queue still counts.
	 */
	private final AtomicLong pending = new AtomicLong();

	private volatile @Nullable String lastError;

	private volatile boolean running;

	/**
	 * Notified when a batch is written and when the writer stops: {@link #flush} and the
	 * retry backoff wait on it, so neither polls nor outlasts a stop.
	 */
	private final Object progress = new Object();

	private volatile boolean warnedFull;

	private @Nullable Thread thread;

	/**
	 * The listener that journals the outcome of each delivery through this writer.
	 * @param clock the clock of journal times
	 * @return the listener
	 */
	public JobLifecycleListener lifecycleListener(Clock clock) {
		return new JournalLifecycleListener(this, clock);
	}

	/**
	 * Creates a writer; nothing runs until {@link #start()}.
	 * @param dataSource the database
	 * @param dialect its dialect
	 * @param table the journal table
	 * @param capacity how many events wait in memory at most
	 * @param batchSize how many events one transaction writes at most
	 */
	public JournalWriter(DataSource dataSource, JournalDialect dialect, String table, int capacity, int batchSize) {
		this.dataSource = dataSource;
		this.upsertSql = dialect.upsert(table);
		this.updateSql = "UPDATE " + table + " SET state = ?, attempts = COALESCE(?, attempts), "
				+ "due_at = COALESCE(?, due_at), last_error = COALESCE(?, last_error), updated_at = ?, "
				+ "finished_at = ? WHERE topic = ? AND id = ?";
		this.runningSql = "UPDATE " + table + " SET state = '" + JournalState.RUNNING + "', attempts = ?, "
				+ "updated_at = ? WHERE topic = ? AND id = ? AND finished_at IS NULL AND (state <> '"
				+ JournalState.RETRYING + "' OR attempts < ?) AND (state <> '" + JournalState.RUNNING
				+ "' OR attempts <= ?)";
		this.batchSize = batchSize;
		this.queue = new ArrayBlockingQueue<>(capacity);
	}

	/**
	 * Queues an event without waiting; drops it when the buffer is full.
	 * @param event the event
	 */
	public void offer(JournalEvent event) {
		this.pending.incrementAndGet();
		if (this.queue.offer(event)) {
			return;
		}
		this.pending.decrementAndGet();
		this.dropped.incrementAndGet();
		if (!this.warnedFull) {
			this.warnedFull = true;
			logger.warn("redeq journal buffer is full (" + this.queue.size() + " events; the database is slow or "
					+ "down: " + this.lastError + "); journal events are dropped until it catches up. "
					+ "Jobs in Redis are not affected.");
		}
	}

	/**
	 * Events not yet written: the lag of the journal behind Redis.
	 * @return the number of events waiting
	 */
	public long lag() {
		return this.pending.get();
	}

	/**
	 * Events dropped because the buffer was full.
	 * @return the count since start
	 */
	public long dropped() {
		return this.dropped.get();
	}

	/**
	 * Events written.
	 * @return the count since start
	 */
	public long written() {
		return this.written.get();
	}

	/**
	 * The error of the latest failed write, cleared by the next successful one.
	 * @return the error, or null while writes succeed
	 */
	public @Nullable String lastError() {
		return this.lastError;
	}

	/**
	 * Waits until every event queued so far is written.
	 * @param timeout how long to wait at most
	 * @return whether the journal caught up in time
	 */
	public boolean flush(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this.progress) {
			while (lag() > 0 && this.running) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				if (!waitForProgress(Duration.ofNanos(left))) {
					return false;
				}
			}
		}
		return lag() == 0;
	}

	/** Starts the writer thread. */
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		Thread writer = new Thread(this::run, "redeq-journal-writer");
		writer.setDaemon(true);
		writer.start();
		this.thread = writer;
	}

	/**
	 * Writes what is queued (for at most {@code timeout}), then stops the thread.
	 * @param timeout how long to try to catch up
	 */
	public synchronized void stop(Duration timeout) {
		if (!this.running) {
			return;
		}
		flush(timeout);
		this.running = false;
		synchronized (this.progress) {
			this.progress.notifyAll();
		}
		Thread writer = this.thread;
		if (writer != null) {
			writer.interrupt();
			try {
				writer.join(timeout.toMillis() + 1000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (lag() > 0) {
			logger.warn("redeq journal stopped with " + lag() + " events not written: " + this.lastError);
		}
	}

	private void run() {
		while (this.running) {
			List<JournalEvent> batch = new ArrayList<>();
			try {
				JournalEvent first = this.queue.poll(200, TimeUnit.MILLISECONDS);
				if (first == null) {
					if (!this.waiting.isEmpty()) {
						writeUntilDone(batch);
					}
					continue;
				}
				batch.add(first);
			}
			catch (InterruptedException ex) {
				continue; // stop() interrupts; the loop condition decides
			}
			this.queue.drainTo(batch, this.batchSize - 1);
			writeUntilDone(batch);
			this.pending.addAndGet(-batch.size());
			synchronized (this.progress) {
				this.progress.notifyAll();
			}
		}
	}

	/** Retries one batch until it is written or the writer stops. */
	private void writeUntilDone(List<JournalEvent> batch) {
		Duration backoff = Duration.ofMillis(100);
		while (true) {
			try {
				write(batch);
				this.written.addAndGet(batch.size());
				if (this.lastError != null) {
					logger.info("redeq journal writes again; " + this.queue.size() + " events to catch up");
				}
				this.lastError = null;
				this.warnedFull = false;
				return;
			}
			catch (SQLException | RuntimeException ex) {
				if (this.lastError == null) {
					logger.warn("redeq journal cannot write to its database (retrying; jobs in Redis are not "
							+ "affected): " + ex.getMessage());
				}
				this.lastError = ex.getClass().getSimpleName() + ": " + ex.getMessage();
				if (!this.running) {
					return;
				}
				synchronized (this.progress) {
					if (this.running) {
						waitForProgress(backoff); // stop() cuts the backoff short
					}
				}
				backoff = (backoff.compareTo(MAX_BACKOFF) < 0) ? backoff.multipliedBy(2) : MAX_BACKOFF;
			}
		}
	}

	/**
	 * One transaction. Inserts run before updates, so that a job scheduled and finished
	 * within one batch ends finished; a second insert of a key already updated in this
	 * batch (an id reused) first flushes what came before.
	 */
	private void write(List<JournalEvent> batch) throws SQLException {
		List<Waiting> retried = new ArrayList<>(this.waiting);
		this.waiting.clear();
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(false);
			try (PreparedStatement upsert = connection.prepareStatement(this.upsertSql);
					PreparedStatement update = connection.prepareStatement(this.updateSql);
					PreparedStatement running = connection.prepareStatement(this.runningSql)) {
				Batches batches = new Batches(upsert, update, running);
				for (JournalEvent event : batch) {
					batches.add(event, 0);
				}
				// After the new events: the insert an update waits for is among them.
				for (Waiting wait : retried) {
					batches.add(wait.event(), wait.waits());
				}
				batches.execute();
				connection.commit();
			}
			catch (SQLException | RuntimeException ex) {
				this.waiting.clear();
				this.waiting.addAll(retried);
				connection.rollback();
				throw ex;
			}
		}
	}

	/**
	 * Waits on {@link #progress} (its monitor held) for at most {@code duration}.
	 * @return {@code false} if the waiting thread was interrupted
	 */
	private boolean waitForProgress(Duration duration) {
		try {
			this.progress.wait(Math.max(1, duration.toMillis()));
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private static @Nullable String truncate(@Nullable String error) {
		return (error == null || error.length() <= MAX_ERROR_LENGTH) ? error : error.substring(0, MAX_ERROR_LENGTH);
	}

	private static void setNullable(PreparedStatement statement, int index, @Nullable Object value, int type)
			throws SQLException {
		if (value == null) {
			statement.setNull(index, type);
		}
		else {
			statement.setObject(index, value, type);
		}
	}

	private record Waiting(JournalEvent.Changed event, int waits) {
	}

	/** The JDBC batches of one transaction, and the keys they hold. */
	private final class Batches {

		private final PreparedStatement upsert;

		private final Updates update;

		private final Updates running;

		private final Set<String> updatedKeys = new HashSet<>();

		private int upserts;

		Batches(PreparedStatement upsert, PreparedStatement update, PreparedStatement running) {
			this.upsert = upsert;
			this.update = new Updates(update);
			this.running = new Updates(running);
		}

		void add(JournalEvent event, int waits) throws SQLException {
			String key = event.topic() + '\u0000' + event.id();
			if (event instanceof JournalEvent.Scheduled scheduled) {
				if (this.updatedKeys.contains(key)) {
					execute();
				}
				addUpsert(scheduled);
			}
			else if (event instanceof JournalEvent.Changed changed) {
				this.updatedKeys.add(key);
				if (changed.state() == JournalState.RUNNING) {
					this.running.add(changed, waits, this::setRunning);
				}
				else {
					this.update.add(changed, waits, this::setUpdate);
				}
			}
		}

		private void addUpsert(JournalEvent.Scheduled event) throws SQLException {
			event.row().bindUpsert(this.upsert, JournalState.SCHEDULED, event.at());
			this.upsert.addBatch();
			this.upserts++;
		}

		private void setUpdate(PreparedStatement update, JournalEvent.Changed event) throws SQLException {
			update.setString(1, event.state().name());
			setNullable(update, 2, event.attempts(), Types.INTEGER);
			setNullable(update, 3, event.dueAt(), Types.BIGINT);
			setNullable(update, 4, truncate(event.error()), Types.VARCHAR);
			update.setLong(5, event.at());
			setNullable(update, 6, event.state().isFinished() ? event.at() : null, Types.BIGINT);
			update.setString(7, event.topic());
			update.setString(8, event.id());
		}

		private void setRunning(PreparedStatement running, JournalEvent.Changed event) throws SQLException {
			// A start always names its attempt (see JournalLifecycleListener.onStart).
			int attempt = (event.attempts() != null) ? event.attempts() : 1;
			running.setInt(1, attempt);
			running.setLong(2, event.at());
			running.setString(3, event.topic());
			running.setString(4, event.id());
			running.setInt(5, attempt);
			running.setInt(6, attempt);
		}

		/**
		 * Runs the batches: inserts first, then outcomes, then starts (whose condition
		 * makes their order against the outcomes of the same batch irrelevant). An update
		 * that found no row (the job's insert is still queued behind it: the job ran
		 * before its "scheduled" event was queued) waits for a few later batches; so does
		 * a start its condition turned down, harmlessly.
		 */
		void execute() throws SQLException {
			if (this.upserts > 0) {
				this.upsert.executeBatch();
				this.upserts = 0;
			}
			this.update.execute();
			this.running.execute();
			this.updatedKeys.clear();
		}

	}

	@FunctionalInterface
	private interface Binder {

		void bind(PreparedStatement statement, JournalEvent.Changed event) throws SQLException;

	}

	/** One statement's JDBC batch of updates, and the events in it. */
	private final class Updates {

		private final PreparedStatement statement;

		private final List<Waiting> events = new ArrayList<>();

		Updates(PreparedStatement statement) {
			this.statement = statement;
		}

		void add(JournalEvent.Changed event, int waits, Binder binder) throws SQLException {
			binder.bind(this.statement, event);
			this.statement.addBatch();
			this.events.add(new Waiting(event, waits));
		}

		void execute() throws SQLException {
			if (this.events.isEmpty()) {
				return;
			}
			int[] counts = this.statement.executeBatch();
			for (int i = 0; i < counts.length && i < this.events.size(); i++) {
				Waiting wait = this.events.get(i);
				if (counts[i] == 0 && wait.waits() < ROW_WAITS) {
					JournalWriter.this.waiting.add(new Waiting(wait.event(), wait.waits() + 1));
				}
			}
			this.events.clear();
		}

	}

}
