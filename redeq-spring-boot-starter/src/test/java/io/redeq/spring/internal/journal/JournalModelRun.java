package io.redeq.spring.internal.journal;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.redeq.DuplicateJobException;
import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.RedeqClient;
import io.redeq.spring.internal.journal.JournalModel.Fate;
import io.redeq.spring.internal.journal.JournalModel.Incarnation;
import io.redeq.spring.internal.journal.JournalModel.Path;
import io.redeq.spring.internal.journal.JournalModel.Window;
import io.redeq.spring.internal.journal.JournalModelRecorder.Behavior;
import io.redeq.spring.internal.journal.JournalModelRecorder.Payload;
import io.redeq.spring.internal.journal.JournalModelSystem.FinalRow;

/**
 * One seeded run of {@link JournalModelIntegrationTests}: random operations on random
 * instances, a fault of each kind at a seeded point, then the wait until every job ended
 * and the {@link JournalModel}'s checks.
 *
 * <p>
 * Every operation draws from its own generator split off the seed's, so an outcome that
 * differs on replay never shifts the draws of the operations after it. Thread timing is
 * not reproducible: a replay repeats the workload, not necessarily the interleaving.
 */
final class JournalModelRun {

	/** Ids per run: few enough that schedules often REPLACE an earlier job. */
	private static final int IDS = 24;

	/** How long every job of a run has, after the last operation, to end. */
	private static final Duration QUIESCENCE = Duration.ofSeconds(60);

	private final long seed;

	private final int ops;

	private final String idPrefix;

	private final JournalModelSystem system;

	private final JournalModelRecorder recorder;

	private final boolean refusals;

	private final boolean relayedReplaces;

	/** Every id the run used, the pool's and the fresh ones. */
	private final Set<String> ids = new LinkedHashSet<>();

	/** Ids used once only, for schedules the relay may send. */
	private final List<String> freshIds = new ArrayList<>();

	private boolean refusing;

	private final SplittableRandom random;

	final JournalModel model = new JournalModel();

	private int nonces;

	JournalModelRun(long seed, int ops, int index, JournalModelSystem system, JournalModelRecorder recorder,
			boolean refusals, boolean relayedReplaces) {
		this.seed = seed;
		this.ops = ops;
		this.idPrefix = "r" + index + "x";
		this.system = system;
		this.recorder = recorder;
		this.refusals = refusals;
		this.relayedReplaces = relayedReplaces;
		for (int i = 0; i < IDS; i++) {
			this.ids.add(this.idPrefix + i);
		}
		this.random = new SplittableRandom(seed);
	}

	/** Runs the operations and faults, waits for the end and checks; never throws. */
	void run() {
		try {
			drive();
			quiesce();
			check();
		}
		catch (Throwable ex) {
			this.model.violation("the run stopped with " + ex + "\n" + stackTrace(ex));
		}
	}

	private void drive() {
		int lossAt = at(0.15, 0.30);
		int refuseAt = at(0.40, 0.55);
		int outageAt = at(0.65, 0.80);
		for (int op = 1; op <= this.ops; op++) {
			SplittableRandom r = this.random.split();
			if (op == lossAt) {
				loseRedisData(op, r.split());
			}
			if (op == refuseAt && this.refusals) {
				refuseWrites(op, r.split());
				continue;
			}
			if (op == outageAt) {
				databaseDown(op, r.split());
				continue;
			}
			operation(op, r);
			// think time: part of the seeded workload, not a wait for a condition
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(r.nextInt(60)));
		}
	}

	private int at(double from, double to) {
		return (int) Math.max(1, Math.round(this.ops * (from + this.random.nextDouble() * (to - from))));
	}

	// operations

	private void operation(int op, SplittableRandom r) {
		int instance = r.nextInt(this.system.size());
		int kind = r.nextInt(100);
		Path path = path(r);
		boolean rollback = path == Path.TX && r.nextInt(5) == 0;
		String id = id(r);
		if (kind < 50) {
			List<String> ids = new ArrayList<>(List.of(id));
			if (path != Path.DIRECT && r.nextInt(3) == 0) {
				String other = id(r);
				if (!other.equals(id)) {
					ids.add(other);
				}
			}
			if (!this.relayedReplaces && (path == Path.TX_DIED || (path == Path.TX && this.refusing))) {
				ids.replaceAll((ignored) -> freshId());
			}
			schedule(op, instance, path, rollback, ids, r);
		}
		else if (!this.freshIds.isEmpty() && r.nextInt(4) == 0) {
			// A job the relay sent (or will send) is cancelled or moved too.
			String fresh = this.freshIds.get(r.nextInt(this.freshIds.size()));
			if (kind < 75) {
				cancel(op, instance, path, rollback, fresh);
			}
			else {
				reschedule(op, instance, path, rollback, fresh, Duration.ofMillis(r.nextInt(1000)));
			}
		}
		else if (kind < 75) {
			cancel(op, instance, path, rollback, id);
		}
		else {
			reschedule(op, instance, path, rollback, id, Duration.ofMillis(r.nextInt(1000)));
		}
	}

	private static Path path(SplittableRandom r) {
		int p = r.nextInt(100);
		return (p < 40) ? Path.DIRECT : (p < 87) ? Path.TX : Path.TX_DIED;
	}

	private String id(SplittableRandom r) {
		return this.idPrefix + r.nextInt(IDS);
	}

	/**
	 * An id no job had, for a schedule only the relay sends, when the run is asked to
	 * keep those apart from the ids of other jobs (see
	 * {@code redeq.journal.model.relayed-replaces} in the test's javadoc).
	 */
	private String freshId() {
		String id = this.idPrefix + "f" + this.freshIds.size();
		this.freshIds.add(id);
		this.ids.add(id);
		return id;
	}

	private void schedule(int op, int instance, Path path, boolean rollback, List<String> ids, SplittableRandom r) {
		List<Incarnation> jobs = new ArrayList<>();
		List<Job> sent = new ArrayList<>();
		for (String id : ids) {
			int b = r.nextInt(10);
			Behavior behavior = (b < 6) ? Behavior.OK : (b < 8) ? Behavior.FLAKY : Behavior.FAIL;
			int maxAttempts = (r.nextInt(4) == 0) ? 1 : 3;
			Payload payload = new Payload("n" + (++this.nonces), behavior, 10 + r.nextInt(120));
			Incarnation incarnation = this.model.schedule(id, payload, maxAttempts, path, op);
			Job.Builder job = Job.builder(JournalModelSystem.TOPIC)
				.id(id)
				.payload(payload.text())
				.delay(Duration.ofMillis(r.nextInt(1500)));
			if (maxAttempts == 1) {
				job.maxAttempts(1);
			}
			jobs.add(incarnation);
			sent.add(job.build());
		}
		RedeqClient client = this.system.client(instance);
		if (path == Path.DIRECT) {
			Incarnation incarnation = jobs.get(0);
			this.model.count("schedule");
			try {
				client.schedule(sent.get(0));
				incarnation.fate = Fate.COMMITTED;
				this.model.replaced(incarnation, System.nanoTime());
			}
			catch (RuntimeException ex) {
				incarnation.fate = refused(ex) ? Fate.REFUSED : Fate.MAYBE;
				if (incarnation.fate == Fate.MAYBE) {
					this.model.taint(incarnation.id, "schedule failed: " + ex);
				}
			}
			this.model.note(op, "schedule on " + instance + ": " + incarnation);
			return;
		}
		this.model.count(rollback ? "schedule, rolled back"
				: (path == Path.TX) ? "schedule in a transaction" : "schedule, dies after commit");
		Outcome outcome = transaction(instance, path == Path.TX_DIED, rollback, () -> {
			sent.forEach(client::schedule);
			return true;
		});
		for (Incarnation incarnation : jobs) {
			if (!outcome.committed) {
				incarnation.fate = Fate.ROLLED_BACK;
			}
			else {
				incarnation.committedAt = outcome.committedAt;
				if (outcome.failure == null) {
					incarnation.fate = Fate.COMMITTED;
					if (path == Path.TX) {
						this.model.replaced(incarnation, outcome.returnedAt);
					}
					else {
						this.model.mayHaveReplaced(incarnation);
					}
				}
				else if (isOutOfMemory(outcome.failure)) {
					// Redis refused the send after commit: the relay sends it later.
					incarnation.fate = Fate.COMMITTED;
					this.model.mayHaveReplaced(incarnation);
				}
				else {
					incarnation.fate = Fate.MAYBE;
					this.model.taint(incarnation.id, "send after commit failed: " + outcome.failure);
				}
			}
			this.model.note(op, "schedule " + outcome + " on " + instance + ": " + incarnation);
		}
	}

	private void cancel(int op, int instance, Path path, boolean rollback, String id) {
		Incarnation target = this.model.current(id);
		RedeqClient client = this.system.client(instance);
		if (path == Path.DIRECT) {
			this.model.count("cancel");
			try {
				boolean cancelled = client.cancel(JournalModelSystem.TOPIC, id);
				if (cancelled && target != null) {
					target.cancelledAt = System.nanoTime();
				}
				this.model.note(op, "cancel " + id + " on " + instance + " -> " + cancelled + " (" + target + ")");
			}
			catch (RuntimeException ex) {
				if (target != null && !isOutOfMemory(ex)) {
					target.cancelCommitted = true;
				}
				this.model.note(op, "cancel " + id + " on " + instance + " failed: " + ex);
			}
			return;
		}
		this.model.count(rollback ? "cancel, rolled back"
				: (path == Path.TX) ? "cancel in a transaction" : "cancel, dies after commit");
		Outcome outcome = transaction(instance, path == Path.TX_DIED, rollback,
				() -> client.cancel(JournalModelSystem.TOPIC, id));
		if (outcome.committed && outcome.result && target != null) {
			if (path == Path.TX && outcome.failure == null
					&& this.recorder.runs(JournalModelSystem.TOPIC, id, target.payload.nonce()).isEmpty()
					&& client.find(JournalModelSystem.TOPIC, id).isEmpty()) {
				// Gone and never run: the cancel after commit removed it, for good.
				target.cancelledAt = System.nanoTime();
			}
			target.cancelCommitted = true;
		}
		this.model.note(op, "cancel " + id + " " + outcome + " on " + instance + " (" + target + ")");
	}

	private void reschedule(int op, int instance, Path path, boolean rollback, String id, Duration delay) {
		RedeqClient client = this.system.client(instance);
		if (path == Path.DIRECT) {
			this.model.count("reschedule");
			try {
				boolean moved = client.reschedule(JournalModelSystem.TOPIC, id, delay);
				this.model.note(op,
						"reschedule " + id + " by " + delay.toMillis() + " ms on " + instance + " -> " + moved);
			}
			catch (RuntimeException ex) {
				this.model.note(op, "reschedule " + id + " on " + instance + " failed: " + ex);
			}
			return;
		}
		this.model.count(rollback ? "reschedule, rolled back"
				: (path == Path.TX) ? "reschedule in a transaction" : "reschedule, dies after commit");
		Outcome outcome = transaction(instance, path == Path.TX_DIED, rollback,
				() -> client.reschedule(JournalModelSystem.TOPIC, id, delay));
		this.model.note(op, "reschedule " + id + " by " + delay.toMillis() + " ms " + outcome + " on " + instance);
	}

	/**
	 * Runs {@code work} in a transaction of the instance's
	 * {@code DataSourceTransactionManager}: rolled back, committed, or committed by a
	 * process that "dies" right after the commit (a synchronization ordered first throws
	 * in {@code afterCommit}, so redeq's send never runs, as when the process is killed
	 * there). Whether it committed is learnt from that synchronization, not from the
	 * exception.
	 */
	private Outcome transaction(int instance, boolean die, boolean rollback, Supplier<Boolean> work) {
		AtomicLong committedAt = new AtomicLong();
		AtomicBoolean result = new AtomicBoolean();
		RuntimeException failure = null;
		try {
			this.system.transaction(instance).executeWithoutResult((status) -> {
				result.set(work.get());
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

					@Override
					public int getOrder() {
						return Ordered.HIGHEST_PRECEDENCE;
					}

					@Override
					public void afterCommit() {
						committedAt.set(System.nanoTime());
						if (die) {
							throw new ProcessDied();
						}
					}

				});
				if (rollback) {
					status.setRollbackOnly();
				}
			});
		}
		catch (ProcessDied expected) {
			// the simulated death after the commit
		}
		catch (RuntimeException ex) {
			failure = ex;
		}
		boolean committed = committedAt.get() != 0;
		return new Outcome(committed, committed ? committedAt.get() : null, System.nanoTime(), result.get(),
				committed ? failure : null, committed ? null : failure);
	}

	private static boolean refused(RuntimeException ex) {
		return ex instanceof DuplicateJobException || isOutOfMemory(ex);
	}

	private static boolean isOutOfMemory(@Nullable Throwable ex) {
		for (Throwable t = ex; t != null; t = t.getCause()) {
			if (String.valueOf(t.getMessage()).contains("OOM")) {
				return true;
			}
		}
		return false;
	}

	// faults

	/**
	 * Redis loses everything (FLUSHALL, or a restart of a redis-server that keeps
	 * nothing), just after every writer wrote what it held; then every instance recovers
	 * at once, or the first one's {@code auto-recover} does. The window lasts until the
	 * markers are back and no instance reports a loss.
	 */
	private void loseRedisData(int op, SplittableRandom r) {
		boolean restart = r.nextBoolean();
		boolean manual = r.nextBoolean();
		Window loss = this.model.window(this.model.losses, (restart ? "Redis restarted empty" : "FLUSHALL")
				+ (manual ? ", recovered everywhere" : ", auto-recovered"));
		this.model.count("fault: " + loss.what);
		this.system.flushWriters(Duration.ofSeconds(10));
		if (restart) {
			this.system.restartRedis();
		}
		else {
			this.system.flushAll();
		}
		List<Long> sent = manual ? this.system.recoverEverywhere() : List.of();
		try {
			Awaitility.await()
				.atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(100))
				.until(() -> markersPresent() && this.system.noLossKnown());
		}
		catch (ConditionTimeoutException ex) {
			this.model.violation("op " + op + ": " + loss.what + ": not recovered within 30 s");
		}
		loss.to = System.nanoTime();
		this.model.note(op, loss + ", recoveries sent " + sent);
	}

	private boolean markersPresent() {
		BucketMarkers markers = new BucketMarkers(this.system.connectionFactory(), "redeq", 16);
		for (RedisMarker.State state : markers.read()) {
			if (state != RedisMarker.State.PRESENT) {
				return false;
			}
		}
		return true;
	}

	/** Redis refuses every write for a few operations ({@code maxmemory 1}). */
	private void refuseWrites(int op, SplittableRandom r) {
		Window refusal = this.model.window(this.model.refusals, "Redis refusing writes");
		this.model.count("fault: Redis refusing writes");
		this.system.refuseWrites(true);
		this.refusing = true;
		try {
			long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(800 + r.nextInt(1500));
			for (int i = 0; i < 8 && System.nanoTime() < until; i++) {
				operation(op, r.split());
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100 + r.nextInt(200)));
			}
		}
		finally {
			this.system.refuseWrites(false);
			this.refusing = false;
			refusal.to = System.nanoTime();
			this.model.note(op, refusal.toString());
		}
	}

	/**
	 * The database is stopped for a few operations, then started; the window lasts until
	 * every writer caught up.
	 */
	private void databaseDown(int op, SplittableRandom r) {
		Window outage = this.model.window(this.model.outages, "database down");
		this.model.count("fault: database down");
		this.system.stopDatabase();
		try {
			int during = 2 + r.nextInt(4);
			for (int i = 0; i < during; i++) {
				operation(op, r.split());
			}
		}
		finally {
			this.system.startDatabase();
			if (!this.system.flushWriters(Duration.ofSeconds(30))) {
				this.model
					.violation("op " + op + ": the writers did not catch up within 30 s of the database's restart");
			}
			outage.to = System.nanoTime();
			this.model.note(op, outage.toString());
		}
	}

	// the end

	/**
	 * Waits until no handler runs, Redis holds no job of the run but dead ones, and every
	 * journal row of the run is finished.
	 */
	private void quiesce() {
		try {
			Awaitility.await()
				.atMost(QUIESCENCE)
				.pollInterval(Duration.ofMillis(250))
				.until(() -> this.recorder.inFlight() == 0 && redis().values().stream().allMatch(this::ended)
						&& this.system.rows(this.idPrefix).values().stream().noneMatch(FinalRow::pending));
		}
		catch (ConditionTimeoutException ex) {
			this.model.violation("jobs did not end within " + QUIESCENCE.toSeconds() + " s of the last operation");
		}
		this.system.flushWriters(Duration.ofSeconds(10));
	}

	private boolean ended(@Nullable JobInfo info) {
		return info == null || info.state() == JobState.DEAD;
	}

	private Map<String, @Nullable JobInfo> redis() {
		RedeqClient client = this.system.client(0);
		Map<String, @Nullable JobInfo> jobs = new HashMap<>();
		for (String id : this.ids) {
			jobs.put(id, client.find(JournalModelSystem.TOPIC, id).orElse(null));
		}
		return jobs;
	}

	private void check() throws SQLException {
		this.model.check(this.recorder, this.system.rows(this.idPrefix), redis());
	}

	/** The run's trace and problems, for the failure message. */
	String report(String replay) {
		StringBuilder out = new StringBuilder();
		out.append("journal model seed ")
			.append(this.seed)
			.append(": ")
			.append(this.model.violations().size())
			.append(" problem(s). Replay: ")
			.append(replay)
			.append('\n');
		this.model.violations().forEach((v) -> out.append("  PROBLEM ").append(v).append('\n'));
		out.append("Ids with an unknown schedule (weaker checks): ").append(this.model.tainted()).append('\n');
		out.append("Trace:\n");
		this.model.trace().forEach((line) -> out.append("  ").append(line).append('\n'));
		return out.toString();
	}

	private static String stackTrace(Throwable ex) {
		StringWriter out = new StringWriter();
		ex.printStackTrace(new PrintWriter(out));
		return out.toString();
	}

	/** How a transaction ended. */
	private record Outcome(boolean committed, @Nullable Long committedAt, long returnedAt, boolean result,
			@Nullable RuntimeException failure, @Nullable RuntimeException notCommitted) {

		@Override
		public String toString() {
			return (this.committed ? "committed" : "not committed") + " -> " + this.result + ((this.failure != null)
					? " (then failed: " + this.failure + ")"
					: (this.notCommitted != null) ? " (" + this.notCommitted.getClass().getSimpleName() + ")" : "");
		}

	}

	private static final class ProcessDied extends RuntimeException {

	}

}
