package io.redeq.spring.internal.journal;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.ObjectMapper;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

import io.redeq.Recurring;
import io.redeq.RedeqClient;
import io.redeq.internal.schedule.JobRestorer;
import io.redeq.internal.schedule.JournalHooks;
import io.redeq.spring.internal.transaction.TransactionalOutbox;

/**
 * The journal of one application: the writer, the outbox relay, the retention and the
 * watch over Redis, with one background thread for the periodic work and one for the
 * writer.
 *
 * <p>
 * Its lifecycle phase is below the engine's, so it starts before the engine (the relay
 * sends what earlier runs left unsent at once) and stops after it (the last outcomes of
 * the workers are still written). Its threads also end when its bean is destroyed without
 * a stop, so that they never outlive the context that made them.
 */
public final class RedeqJournal implements SmartLifecycle, DisposableBean {

	private static final Log logger = LogFactory.getLog(RedeqJournal.class);

	private static final int MAX_BATCHES_PER_RUN = 20;

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private final JournalSettings settings;

	private final JournalWriter writer;

	private final JobVersions versions;

	private final JdbcOutbox outbox;

	private final OutboxRelay relay;

	private final JournalRetention retention;

	private final JournalRecovery recovery;

	private final JournalReconciler reconciler;

	private final OutboxChanges outboxChanges;

	private final JournalAdminChanges adminChanges;

	private final Clock clock;

	private final int phase;

	private volatile @Nullable ScheduledExecutorService timer;

	private volatile @Nullable String relayError;

	/**
	 * Builds the journal; nothing runs until {@link #start()}.
	 * @param dataSource the application's database
	 * @param dialect its dialect
	 * @param settings the settings
	 * @param writer the writer the journaling client and listener queue events to
	 * @param client the client that talks to Redis (not transaction-aware)
	 * @param restorer the engine's internal way to send a job again with the attempts it
	 * used ({@link io.redeq.Redeq#restorer()})
	 * @param hooks the engine's internal hooks ({@link io.redeq.Redeq#journalHooks()}):
	 * the journal learns from them each job Redis stored, and writes outbox payloads with
	 * the engine's codec
	 * @param marker the markers of Redis's buckets
	 * @param mapper the mapper redeq writes payloads with
	 * @param recurring the recurring jobs the application declares at startup, declared
	 * again after Redis lost its data
	 * @param clock the clock of journal times
	 * @param phase the lifecycle phase, below the engine's
	 */
	public RedeqJournal(DataSource dataSource, JournalDialect dialect, JournalSettings settings, JournalWriter writer,
			RedeqClient client, JobRestorer restorer, JournalHooks hooks, RedisMarker marker, ObjectMapper mapper,
			List<Recurring> recurring, Clock clock, int phase) {
		String table = settings.table();
		this.settings = settings;
		this.clock = clock;
		this.phase = phase;
		this.writer = writer;
		this.versions = new JobVersions();
		hooks.versions(this.versions);
		hooks.traceContexts(this.versions::traceContextOf);
		this.outbox = new JdbcOutbox(dataSource, dialect, table, hooks::payloadJson, hooks::traceContextHere,
				this.versions, clock);
		hooks.onAccepted((job) -> JournalingRedeqClient.accepted(writer, clock, job));
		this.relay = new OutboxRelay(dataSource, table, client, mapper, this.versions, clock, settings.relayGrace(),
				settings.batchSize());
		this.retention = new JournalRetention(dataSource, table, clock, settings.retention(), settings.batchSize());
		this.recovery = new JournalRecovery(dataSource, table, client, restorer, marker, mapper, this.versions,
				recurring);
		// A row running for two check intervals is worth a look; younger ones most
		// likely have their outcome on its way.
		this.reconciler = new JournalReconciler(dataSource, table, client, writer, clock,
				settings.checkInterval().multipliedBy(2), settings.batchSize());
		this.outboxChanges = new OutboxChanges(dataSource, table, client, clock, settings.relayGrace(),
				settings.batchSize());
		this.adminChanges = new JournalAdminChanges(dataSource, table, writer, clock);
	}

	/** The versions jobs are sent as, shared with the engine. */
	JobVersions versions() {
		return this.versions;
	}

	/** What records an operator's changes made through the admin. */
	JournalAdminChanges adminChanges() {
		return this.adminChanges;
	}

	/**
	 * The outbox the transaction-aware client writes to.
	 * @return the outbox
	 */
	public TransactionalOutbox outbox() {
		return this.outbox;
	}

	/**
	 * A client that journals what the target sent to Redis.
	 * @param target the engine's client
	 * @return the journaling client
	 */
	public RedeqClient journaling(RedeqClient target) {
		return new JournalingRedeqClient(target, this.writer, this.clock);
	}

	/**
	 * The writer, for its lag and counters.
	 * @return the writer
	 */
	public JournalWriter writer() {
		return this.writer;
	}

	/**
	 * Why redeq believes Redis lost its data, while not recovered.
	 * @return the reason, or null
	 */
	public @Nullable String lossReason() {
		return this.recovery.lossReason();
	}

	/**
	 * Jobs re-sent from the journal since start.
	 * @return the count
	 */
	public long recovered() {
		return this.recovery.recovered();
	}

	/**
	 * Jobs found buried in Redis with no outcome event (their instance died) and
	 * journaled DEAD since start.
	 * @return the count
	 */
	public long reconciled() {
		return this.reconciler.reconciled();
	}

	/**
	 * Journals DEAD the jobs whose rows are RUNNING for a while and that Redis holds as
	 * dead now.
	 * @return how many were found
	 * @throws SQLException if the journal cannot be read
	 */
	public int reconcileNow() throws SQLException {
		return this.reconciler.reconcile();
	}

	/**
	 * The error of the latest failed relay run, cleared by the next successful one.
	 * @return the error, or null
	 */
	public @Nullable String relayError() {
		return this.relayError;
	}

	/**
	 * Re-sends the journal's pending jobs of the buckets that lost their data that Redis
	 * does not know, after writing what the journal still buffers; buckets whose marker
	 * is present are not touched, and a bucket is recovered once per loss however many
	 * instances call this.
	 * @return how many this call sent
	 */
	public long recover() {
		if (!this.writer.flush(STOP_TIMEOUT)) {
			logger.warn("redeq recovers with " + this.writer.lag() + " journal events not yet written: jobs that "
					+ "finished moments ago may run again");
		}
		try {
			return this.recovery.recover();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("redeq could not read its journal to recover: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Sends the unsent outbox rows older than the grace period now.
	 * @return how many were sent
	 * @throws SQLException if the database fails
	 */
	public int relayNow() throws SQLException {
		return this.relay.relay(MAX_BATCHES_PER_RUN) + this.outboxChanges.apply();
	}

	/**
	 * Deletes the finished rows older than the retention now.
	 * @return how many were deleted
	 * @throws SQLException if the database fails
	 */
	public int deleteExpiredNow() throws SQLException {
		return this.retention.deleteExpired(MAX_BATCHES_PER_RUN);
	}

	/**
	 * Checks Redis for a loss of its data now, and recovers when auto-recover is on.
	 * @return whether a loss was detected
	 * @throws SQLException if the journal cannot be read
	 */
	public boolean checkRedisNow() throws SQLException {
		boolean lost = this.recovery.detectLoss();
		if (lost && this.settings.autoRecover()) {
			recover();
		}
		return lost;
	}

	@Override
	public synchronized void start() {
		if (this.timer != null) {
			return;
		}
		this.writer.start();
		ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "redeq-journal");
			thread.setDaemon(true);
			return thread;
		});
		timer.scheduleWithFixedDelay(this::relayQuietly, 0, this.settings.relayInterval().toMillis(),
				TimeUnit.MILLISECONDS);
		timer.scheduleWithFixedDelay(this::checkQuietly, this.settings.checkInterval().toMillis(),
				this.settings.checkInterval().toMillis(), TimeUnit.MILLISECONDS);
		timer.scheduleWithFixedDelay(this::reconcileQuietly, this.settings.checkInterval().toMillis(),
				this.settings.checkInterval().toMillis(), TimeUnit.MILLISECONDS);
		timer.scheduleWithFixedDelay(this::deleteQuietly, JournalSettings.RETENTION_INTERVAL.toMillis(),
				JournalSettings.RETENTION_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
		this.timer = timer;
	}

	@Override
	public synchronized void stop() {
		ScheduledExecutorService timer = this.timer;
		if (timer == null) {
			return;
		}
		this.timer = null;
		timer.shutdownNow();
		try {
			timer.awaitTermination(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.writer.stop(STOP_TIMEOUT);
	}

	/**
	 * Stops the journal's threads if {@link #stop()} has not. Spring Framework stops the
	 * lifecycle beans it started when a refresh fails after them, and on close; this
	 * covers a bean factory destroyed without its lifecycle processor. Does nothing after
	 * a stop.
	 */
	@Override
	public void destroy() {
		stop();
	}

	@Override
	public boolean isRunning() {
		return this.timer != null;
	}

	@Override
	public int getPhase() {
		return this.phase;
	}

	private void relayQuietly() {
		try {
			int sent = relayNow();
			if (sent > 0) {
				logger.info("redeq journal sent " + sent + " job(s) whose send after commit had not happened");
			}
			this.relayError = null;
		}
		catch (SQLException | RuntimeException ex) {
			if (this.relayError == null) {
				logger.warn("redeq journal could not relay its outbox (retrying): " + ex.getMessage());
			}
			this.relayError = ex.getMessage();
		}
	}

	private void checkQuietly() {
		try {
			checkRedisNow();
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("redeq journal could not check Redis for a loss of data: " + ex.getMessage());
		}
	}

	private void reconcileQuietly() {
		try {
			int found = this.reconciler.reconcile();
			if (found > 0) {
				logger.warn("redeq journal found " + found + " job(s) journaled as running that Redis holds as dead "
						+ "(their last attempt's lease expired: an instance crashed, was paused or hung); "
						+ "journaled as DEAD");
			}
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("redeq journal could not look for jobs Redis buried: " + ex.getMessage());
		}
	}

	private void deleteQuietly() {
		try {
			int deleted = this.retention.deleteExpired(MAX_BATCHES_PER_RUN);
			if (deleted > 0 && logger.isDebugEnabled()) {
				logger.debug("redeq journal deleted " + deleted + " finished job(s) past the retention");
			}
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("redeq journal could not apply its retention: " + ex.getMessage());
		}
	}

}
