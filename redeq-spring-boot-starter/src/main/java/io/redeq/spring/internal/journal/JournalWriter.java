package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
 * event, another instance's writer lagging). The updates follow the job's attempts, never
 * the clocks of different JVMs: a step of attempt n is written only over a pending row of
 * an earlier attempt, or of attempt n at an earlier step of it (start, then failure, then
 * end); no update replaces a finished row (only the insert of a new job under the same id
 * does, {@link JournalDialect#upsert}). An update that finds no row waits for it for a
 * bounded time ({@link RowWaits}), and is counted when given up ({@link #unmatched()}).
 *
 * <p>
 * A failed write is retried while the database fails as a whole; an event the database
 * refuses for what it holds is found by splitting the batch and set aside (logged,
 * {@link #rejected() counted}), so the events behind it are written.
 *
 * <p>
 * One class because the buffer, the batch in hand, its retries and its splitting belong
 * to the one writer thread; the statements it sends are prepared here once for all of
 * them.
 */
public final class JournalWriter {

	private static final Log logger = LogFactory.getLog(JournalWriter.class);

	private static final int MAX_ERROR_LENGTH = 1000;

	/** How long an update waits for its row by default (see {@link RowWaits}). */
	public static final Duration DEFAULT_ROW_WAIT = Duration.ofSeconds(30);

	/** How many updates wait for their row at most. */
	private static final int MAX_WAITING = 10_000;

	private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

	private static final int VALIDITY_TIMEOUT_SECONDS = 2;

	/**
	 * A row's pending states in the order a job passes them within one attempt; finished
	 * rows are never updated (only an insert of a new job under the same id replaces
	 * them).
	 */
	private static final String RANK = "(CASE state WHEN '" + JournalState.RUNNING + "' THEN 1 WHEN '"
			+ JournalState.RETRYING + "' THEN 2 ELSE 0 END)";

	/**
	 * A step of a delivery is written only to a row of the version that ran (see
	 * {@link JobVersions}): not to an outbox row of a newer version a transaction
	 * committed and the relay has yet to send, nor, once that row was sent, by a step
	 * that waited for it. A row or a step without a version (written before versions were
	 * kept, or of a job sent without one) matches any. The parameter is the step's
	 * version, or null.
	 */
	private static final String SAME_VERSION = " AND (job_version IS NULL OR job_version = COALESCE(?, job_version))";

	private final DataSource dataSource;

	private final String upsertSql;

	/**
	 * The outcome of attempt n (RETRYING, COMPLETED, DEAD), written only over a pending
	 * row at an earlier attempt, or at attempt n and an earlier step of it (its start, or
	 * for a final outcome its failure). So a late outcome never replaces a finished row
	 * nor a later attempt's state: order by attempts, never by clocks of different JVMs.
	 */
	private final String outcomeSql;

	/**
	 * The start of attempt n, written only over a pending row at an earlier attempt (or
	 * not started yet at attempt n): not over a finished row, not over the failure or
	 * start of attempt n or a later one. So a start that arrives late never hides the
	 * outcome that followed it.
	 */
	private final String runningSql;

	/** A cancel (the job was waiting in Redis): over any pending row. */
	private final String cancelSql;

	/**
	 * A cancel that waited for its row (none yet, or a finished one): only over a row
	 * written no later than the cancel. A later one is a new job under the same id,
	 * scheduled after the cancel (a cancel of a DEAD job, then the id reused), which the
	 * cancel must not finish.
	 */
	private final String lateCancelSql;

	/**
	 * A reschedule (the job was waiting in Redis): over a pending row not marked as
	 * running, whose outcome is on its way, nor in the outbox: an outbox row holds a
	 * version a transaction committed that Redis may not have yet, and the reschedule
	 * moved the job Redis held; once the row is marked sent it applies.
	 */
	private final String rescheduleSql;

	/** Whether an update that changed nothing found a row, and a finished one. */
	private final String findSql;

	private final int batchSize;

	private final BlockingQueue<JournalEvent> queue;

	private final AtomicLong dropped = new AtomicLong();

	private final AtomicLong written = new AtomicLong();

	private final AtomicLong rejected = new AtomicLong();

	/** Updates that found no row yet (or a finished one), retried with later writes. */
	private final RowWaits waiting;

	/**
	 * Events queued and not yet written (or given up at stop): counted from the offer, so
	 * that an event the writer thread has taken off the queue still counts.
	 */
	private final AtomicLong pending = new AtomicLong();

	private volatile @Nullable String lastError;

	private volatile @Nullable String lastRejected;

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
	 * Creates a writer whose updates wait {@link #DEFAULT_ROW_WAIT} for their row;
	 * nothing runs until {@link #start()}.
	 * @param dataSource the database
	 * @param dialect its dialect
	 * @param table the journal table
	 * @param capacity how many events wait in memory at most
	 * @param batchSize how many events one transaction writes at most
	 */
	public JournalWriter(DataSource dataSource, JournalDialect dialect, String table, int capacity, int batchSize) {
		this(dataSource, dialect, table, capacity, batchSize, DEFAULT_ROW_WAIT);
	}

	/**
	 * Creates a writer; nothing runs until {@link #start()}.
	 * @param dataSource the database
	 * @param dialect its dialect
	 * @param table the journal table
	 * @param capacity how many events wait in memory at most
	 * @param batchSize how many events one transaction writes at most
	 * @param rowWait how long an update that finds no row waits for it before it is given
	 * up and {@link #unmatched() counted}
	 */
	public JournalWriter(DataSource dataSource, JournalDialect dialect, String table, int capacity, int batchSize,
			Duration rowWait) {
		this.dataSource = dataSource;
		this.upsertSql = dialect.upsert(table);
		String pendingSet = "UPDATE " + table + " SET state = ?, attempts = COALESCE(?, attempts), "
				+ "due_at = COALESCE(?, due_at), last_error = COALESCE(?, last_error), updated_at = ?, "
				+ "finished_at = ? WHERE topic = ? AND id = ? AND finished_at IS NULL";
		this.outcomeSql = pendingSet + " AND (attempts < ? OR (attempts = ? AND " + RANK + " < ?))" + SAME_VERSION;
		this.runningSql = "UPDATE " + table + " SET state = '" + JournalState.RUNNING + "', attempts = ?, "
				+ "updated_at = ? WHERE topic = ? AND id = ? AND finished_at IS NULL AND (attempts < ? OR "
				+ "(attempts = ? AND " + RANK + " < 1))" + SAME_VERSION;
		this.cancelSql = pendingSet;
		this.lateCancelSql = pendingSet + " AND updated_at <= ?";
		this.rescheduleSql = pendingSet + " AND state NOT IN ('" + JournalState.RUNNING + "', '" + JournalState.OUTBOX
				+ "')";
		this.findSql = "SELECT finished_at, job_version, state FROM " + table + " WHERE topic = ? AND id = ?";
		this.batchSize = batchSize;
		this.queue = new ArrayBlockingQueue<>(capacity);
		this.waiting = new RowWaits(rowWait, Math.min(capacity, MAX_WAITING));
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
	 * Events the database refused for what they hold (a value too long for its column, a
	 * character it cannot store), set aside so that the events behind them are written.
	 * @return the count since start
	 */
	public long rejected() {
		return this.rejected.get();
	}

	/**
	 * The latest event set aside: the step, the job and the database's reason.
	 * @return its description, or null if none was
	 */
	public @Nullable String lastRejected() {
		return this.lastRejected;
	}

	/**
	 * Updates given up because their job's row did not appear within the row wait: steps
	 * the journal misses.
	 * @return the count since start
	 */
	public long unmatched() {
		return this.waiting.unmatched();
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
		if (this.waiting.size() > 0) {
			logger.info("redeq journal stopped with " + this.waiting.size() + " update(s) still waiting for their "
					+ "job's row");
		}
	}

	private void run() {
		while (this.running) {
			List<JournalEvent> batch = new ArrayList<>();
			try {
				JournalEvent first = this.queue.poll(200, TimeUnit.MILLISECONDS);
				if (first == null) {
					if (this.waiting.anyDue(System.nanoTime())) {
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

	/**
	 * Writes one batch, with the waiting updates whose turn has come. While the database
	 * fails as a whole the same events are retried with a growing pause, until they are
	 * written or the writer stops: nothing is lost. When the database refuses a value of
	 * an event instead, the batch is split until that event is found; the others are
	 * written and it is {@link #setAside set aside}, so one event the database can never
	 * take does not hold up the journal behind it.
	 */
	private void writeUntilDone(List<JournalEvent> batch) {
		List<Item> items = new ArrayList<>(batch.size());
		for (JournalEvent event : batch) {
			items.add(new Item(event, null));
		}
		for (RowWaits.Waiting wait : this.waiting.takeDue(System.nanoTime())) {
			items.add(new Item(wait.event(), wait));
		}
		Duration backoff = Duration.ofMillis(100);
		while (true) {
			Exception failure;
			try {
				commit(items);
				wroteAgain();
				return;
			}
			catch (SQLException | RuntimeException ex) {
				failure = ex;
			}
			JournalFailures.Fault fault = fault(failure);
			if (fault != JournalFailures.Fault.DATABASE) {
				Isolation isolation = isolate(items);
				if (isolation.left().isEmpty()) {
					wroteAgain();
					return;
				}
				items = isolation.left();
				failure = (isolation.failure() != null) ? isolation.failure() : failure;
			}
			if (this.lastError == null) {
				logger.warn("redeq journal cannot write to its database (retrying; jobs in Redis are not "
						+ "affected): " + failure.getMessage());
			}
			this.lastError = failure.getClass().getSimpleName() + ": " + failure.getMessage();
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

	private void wroteAgain() {
		if (this.lastError != null) {
			logger.info("redeq journal writes again; " + this.queue.size() + " events to catch up");
		}
		this.lastError = null;
		this.warnedFull = false;
	}

	/**
	 * Where a failed write's cause lies; when the failure does not say, a database that
	 * does not answer a validity check is the cause.
	 */
	private JournalFailures.Fault fault(Exception failure) {
		JournalFailures.Fault fault = JournalFailures.classify(failure);
		if (fault != JournalFailures.Fault.UNKNOWN) {
			return fault;
		}
		try (Connection connection = this.dataSource.getConnection()) {
			return connection.isValid(VALIDITY_TIMEOUT_SECONDS) ? fault : JournalFailures.Fault.DATABASE;
		}
		catch (SQLException | RuntimeException ex) {
			return JournalFailures.Fault.DATABASE;
		}
	}

	/**
	 * Splits a batch the database refused into halves, written in their order, each in
	 * its own transaction, and a refused half again, down to the single event the
	 * database refuses, which is set aside. A failure of the database as a whole stops
	 * the search: what is not written yet is returned, to be retried as a batch. A single
	 * event that fails for a reason nothing names (no SQLState the writer knows) is set
	 * aside only when the database took other events meanwhile; otherwise the database is
	 * as likely the cause, and it is retried.
	 */
	private Isolation isolate(List<Item> items) {
		Deque<List<Item>> parts = new ArrayDeque<>();
		splitInto(parts, items);
		List<Item> suspects = new ArrayList<>();
		Exception suspicion = null;
		boolean anyWritten = false;
		while (!parts.isEmpty()) {
			List<Item> part = parts.pollFirst();
			try {
				commit(part);
				anyWritten = true;
				continue;
			}
			catch (SQLException | RuntimeException ex) {
				JournalFailures.Fault fault = fault(ex);
				if (fault == JournalFailures.Fault.DATABASE) {
					List<Item> left = new ArrayList<>(suspects);
					left.addAll(part);
					parts.forEach(left::addAll);
					return new Isolation(left, ex);
				}
				if (part.size() > 1) {
					splitInto(parts, part);
				}
				else if (fault == JournalFailures.Fault.EVENT) {
					setAside(part.get(0), ex);
				}
				else {
					suspects.add(part.get(0));
					suspicion = ex;
				}
			}
		}
		if (suspects.isEmpty()) {
			return new Isolation(List.of(), null);
		}
		if (anyWritten) {
			for (Item suspect : suspects) {
				setAside(suspect, suspicion);
			}
			return new Isolation(List.of(), null);
		}
		return new Isolation(suspects, suspicion);
	}

	/** Puts a list's two halves at the head of the parts, first half first. */
	private static void splitInto(Deque<List<Item>> parts, List<Item> items) {
		if (items.size() == 1) {
			parts.addFirst(items);
			return;
		}
		int half = items.size() / 2;
		parts.addFirst(List.copyOf(items.subList(half, items.size())));
		parts.addFirst(List.copyOf(items.subList(0, half)));
	}

	/**
	 * Gives up an event the database refuses: logged at ERROR with the job and the
	 * database's reason, counted ({@link #rejected()}); its row misses that step.
	 */
	private void setAside(Item item, @Nullable Exception failure) {
		JournalEvent event = item.event();
		String step = (event instanceof JournalEvent.Changed changed) ? changed.state().name() : "SCHEDULED";
		String reason = (failure != null) ? JournalFailures.reason(failure) : "(no reason given)";
		String described = step + " of job '" + event.id() + "' of topic '" + event.topic() + "': " + reason;
		this.rejected.incrementAndGet();
		this.lastRejected = described;
		logger.error("redeq journal set aside an event its database refuses, and wrote the others: " + described
				+ ". The job's row misses this step; jobs in Redis are not affected.");
	}

	/**
	 * One transaction. Inserts run before updates, so that a job scheduled and finished
	 * within one batch ends finished; a second insert of a key already updated in this
	 * batch (an id reused) first flushes what came before. The updates that found no row
	 * wait (see {@link Updates#execute}) once the transaction committed.
	 */
	private void commit(List<Item> items) throws SQLException {
		List<Miss> missed = new ArrayList<>();
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(false);
			try (PreparedStatement upsert = connection.prepareStatement(this.upsertSql);
					PreparedStatement outcome = connection.prepareStatement(this.outcomeSql);
					PreparedStatement running = connection.prepareStatement(this.runningSql);
					PreparedStatement cancel = connection.prepareStatement(this.cancelSql);
					PreparedStatement lateCancel = connection.prepareStatement(this.lateCancelSql);
					PreparedStatement reschedule = connection.prepareStatement(this.rescheduleSql);
					PreparedStatement find = connection.prepareStatement(this.findSql)) {
				Batches batches = new Batches(upsert, outcome, running, cancel, lateCancel, reschedule,
						new RowFinder(find), missed);
				Map<String, Integer> ended = endedAttempts(items);
				for (Item item : items) {
					if (!startOfEndedAttempt(item.event(), ended)) {
						batches.add(item);
					}
				}
				batches.execute();
				connection.commit();
			}
			catch (SQLException | RuntimeException ex) {
				connection.rollback();
				throw ex;
			}
		}
		long fresh = items.stream().filter((item) -> item.retried() == null).count();
		this.written.addAndGet(fresh);
		long now = System.nanoTime();
		for (Miss miss : missed) {
			this.waiting.missed(miss.event(), miss.previous(), miss.rowMissing(), now);
		}
		reportGivenUp();
	}

	/**
	 * The latest attempt each job's outcome in these items names: a fast job's start and
	 * outcome often share a batch, and its start then needs no statement at all.
	 */
	private static Map<String, Integer> endedAttempts(List<Item> items) {
		Map<String, Integer> ended = new HashMap<>();
		for (Item item : items) {
			if (item.event() instanceof JournalEvent.Changed changed && changed.attempts() != null
					&& changed.state() != JournalState.RUNNING && changed.state() != JournalState.SCHEDULED) {
				ended.merge(key(changed), changed.attempts(), Math::max);
			}
		}
		return ended;
	}

	private static boolean startOfEndedAttempt(JournalEvent event, Map<String, Integer> ended) {
		if (!(event instanceof JournalEvent.Changed changed) || changed.state() != JournalState.RUNNING
				|| changed.attempts() == null) {
			return false;
		}
		Integer end = ended.get(key(changed));
		return end != null && end >= changed.attempts();
	}

	private static String key(JournalEvent event) {
		return event.topic() + '\u0000' + event.id();
	}

	/** Logs the updates given up since the last report, once per write. */
	private void reportGivenUp() {
		RowWaits.GivenUp givenUp = this.waiting.drainGivenUp();
		if (givenUp.count() == 0) {
			return;
		}
		logger.warn("redeq journal gave up " + givenUp.count() + " update(s) whose job row did not appear within "
				+ this.waiting.rowWait() + " (for example " + givenUp.example() + "; " + this.waiting.unmatched()
				+ " since start). Their rows miss those steps, or were never written (an event dropped or set "
				+ "aside, a job scheduled with another client); jobs in Redis are not affected.");
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

	/** An event to write; {@code retried} is set when it is an update tried again. */
	private record Item(JournalEvent event, RowWaits.@Nullable Waiting retried) {
	}

	/** An update that changed nothing, and whether that was for want of a row. */
	private record Miss(JournalEvent.Changed event, RowWaits.@Nullable Waiting previous, boolean rowMissing) {
	}

	/** The outcome of a batch split by {@link #isolate}. */
	private record Isolation(List<Item> left, @Nullable Exception failure) {
	}

	/** The JDBC batches of one transaction, and the keys they hold. */
	private final class Batches {

		private final PreparedStatement upsert;

		private final Updates outcome;

		private final Updates running;

		private final Updates cancel;

		private final Updates lateCancel;

		private final Updates reschedule;

		private final Set<String> updatedKeys = new HashSet<>();

		private int upserts;

		Batches(PreparedStatement upsert, PreparedStatement outcome, PreparedStatement running,
				PreparedStatement cancel, PreparedStatement lateCancel, PreparedStatement reschedule, RowFinder rows,
				List<Miss> missed) {
			this.upsert = upsert;
			this.outcome = new Updates(outcome, rows, missed, true);
			// A start a finished row refused is dropped: were the row to be replaced by a
			// new job under the same id, that job's outcome still lands, and says more.
			this.running = new Updates(running, rows, missed, false);
			this.cancel = new Updates(cancel, rows, missed, true);
			this.lateCancel = new Updates(lateCancel, rows, missed, true);
			this.reschedule = new Updates(reschedule, rows, missed, true);
		}

		void add(Item item) throws SQLException {
			JournalEvent event = item.event();
			String key = key(event);
			if (event instanceof JournalEvent.Scheduled scheduled) {
				if (this.updatedKeys.contains(key)) {
					execute();
				}
				addUpsert(scheduled);
			}
			else if (event instanceof JournalEvent.Changed changed) {
				this.updatedKeys.add(key);
				switch (changed.state()) {
					case RUNNING -> this.running.add(changed, item.retried(), this::setRunning);
					case RETRYING, COMPLETED, DEAD -> {
						if (changed.attempts() != null) {
							this.outcome.add(changed, item.retried(), this::setOutcome);
						}
						else {
							this.cancel.add(changed, item.retried(), this::setPending);
						}
					}
					case SCHEDULED -> this.reschedule.add(changed, item.retried(), this::setPending);
					case CANCELLED -> {
						if (item.retried() != null) {
							this.lateCancel.add(changed, item.retried(), this::setLateCancel);
						}
						else {
							this.cancel.add(changed, null, this::setPending);
						}
					}
					default -> this.cancel.add(changed, item.retried(), this::setPending);
				}
			}
		}

		private void addUpsert(JournalEvent.Scheduled event) throws SQLException {
			event.row().bindUpsert(this.upsert, JournalState.SCHEDULED, event.at());
			this.upsert.addBatch();
			this.upserts++;
		}

		private void setPending(PreparedStatement update, JournalEvent.Changed event) throws SQLException {
			update.setString(1, event.state().name());
			setNullable(update, 2, event.attempts(), Types.INTEGER);
			setNullable(update, 3, event.dueAt(), Types.BIGINT);
			setNullable(update, 4, truncate(event.error()), Types.VARCHAR);
			update.setLong(5, event.at());
			setNullable(update, 6, event.state().isFinished() ? event.at() : null, Types.BIGINT);
			update.setString(7, event.topic());
			update.setString(8, event.id());
		}

		private void setLateCancel(PreparedStatement update, JournalEvent.Changed event) throws SQLException {
			setPending(update, event);
			update.setLong(9, event.at());
		}

		private void setOutcome(PreparedStatement update, JournalEvent.Changed event) throws SQLException {
			setPending(update, event);
			int attempt = event.attempts();
			update.setInt(9, attempt);
			update.setInt(10, attempt);
			// Within one attempt: its start (1) < its failure (2) < its end (3).
			update.setInt(11, (event.state() == JournalState.RETRYING) ? 2 : 3);
			setNullable(update, 12, event.version(), Types.VARCHAR);
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
			setNullable(running, 7, event.version(), Types.VARCHAR);
		}

		/**
		 * Runs the batches: inserts first, then outcomes, cancels and reschedules, then
		 * starts (whose condition makes their order against the outcomes of the same
		 * batch irrelevant).
		 */
		void execute() throws SQLException {
			if (this.upserts > 0) {
				this.upsert.executeBatch();
				this.upserts = 0;
			}
			this.outcome.execute();
			this.cancel.execute();
			this.lateCancel.execute();
			this.reschedule.execute();
			this.running.execute();
			this.updatedKeys.clear();
		}

	}

	@FunctionalInterface
	private interface Binder {

		void bind(PreparedStatement statement, JournalEvent.Changed event) throws SQLException;

	}

	/** Looks at the row an update changed nothing of. */
	private static final class RowFinder {

		enum Found {

			/** No row: its insert is still on its way. */
			NONE,
			/** A pending row that a later step already changed: the update was stale. */
			PENDING,
			/**
			 * A finished row, a row of another version of the job, or an outbox row not
			 * marked sent yet: an insert of the update's version may still replace it.
			 */
			FINISHED

		}

		private final PreparedStatement find;

		RowFinder(PreparedStatement find) {
			this.find = find;
		}

		Found find(String topic, String id, @Nullable String version) throws SQLException {
			this.find.setString(1, topic);
			this.find.setString(2, id);
			try (ResultSet rows = this.find.executeQuery()) {
				if (!rows.next()) {
					return Found.NONE;
				}
				rows.getLong(1);
				boolean finished = !rows.wasNull();
				String rowVersion = rows.getString(2);
				boolean otherVersion = version != null && rowVersion != null && !version.equals(rowVersion);
				// An outbox row is replaced by its "scheduled" mark once sent: a change
				// it refused waits for that.
				boolean unsent = JournalState.OUTBOX.name().equals(rows.getString(3));
				return (finished || otherVersion || unsent) ? Found.FINISHED : Found.PENDING;
			}
		}

	}

	/** One statement's JDBC batch of updates, and the events in it. */
	private static final class Updates {

		private final PreparedStatement statement;

		private final RowFinder rows;

		private final List<Miss> missed;

		private final boolean waitOnFinished;

		private final List<Miss> events = new ArrayList<>();

		Updates(PreparedStatement statement, RowFinder rows, List<Miss> missed, boolean waitOnFinished) {
			this.statement = statement;
			this.rows = rows;
			this.missed = missed;
			this.waitOnFinished = waitOnFinished;
		}

		void add(JournalEvent.Changed event, RowWaits.@Nullable Waiting wait, Binder binder) throws SQLException {
			binder.bind(this.statement, event);
			this.statement.addBatch();
			this.events.add(new Miss(event, wait, false));
		}

		/**
		 * Runs the batch. An update that changed nothing is looked at: with no row yet
		 * (the job's insert is still queued behind it: the job ran before its "scheduled"
		 * event was queued, or another instance's writer lags) or, unless it is a start,
		 * over a finished row or a row of another version of the job (an insert of the
		 * update's version may replace it) it waits for later writes; over a pending row
		 * of its version it was stale (a later step is there already) and is dropped.
		 */
		void execute() throws SQLException {
			if (this.events.isEmpty()) {
				return;
			}
			int[] counts = this.statement.executeBatch();
			for (int i = 0; i < counts.length && i < this.events.size(); i++) {
				if (counts[i] != 0) {
					continue;
				}
				Miss miss = this.events.get(i);
				JournalEvent.Changed event = miss.event();
				RowFinder.Found found = this.rows.find(event.topic(), event.id(), event.version());
				if (found == RowFinder.Found.NONE || (found == RowFinder.Found.FINISHED && this.waitOnFinished)) {
					this.missed.add(new Miss(event, miss.previous(), found == RowFinder.Found.NONE));
				}
			}
			this.events.clear();
		}

	}

}
