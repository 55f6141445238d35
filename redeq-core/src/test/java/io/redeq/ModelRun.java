package io.redeq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;

import io.redeq.ModelState.Cause;
import io.redeq.ModelState.End;
import io.redeq.ModelState.JobModel;
import io.redeq.ModelState.Known;
import io.redeq.ModelWorkload.Behavior;
import io.redeq.ModelWorkload.Kind;
import io.redeq.ModelWorkload.TopicSpec;
import io.redeq.test.JavaProcess;
import io.redeq.test.RedisServer;

import static org.awaitility.Awaitility.await;

/**
 * One seeded run of {@link ModelIntegrationTests}: a redis-server with AOF, two engines
 * in this JVM and one in a child JVM, a seeded sequence of operations and disruptions,
 * and the checks of {@link ModelChecks} against the model in {@link ModelState}.
 *
 * <p>
 * The seed fixes the operations, their order, payload behaviours, due times, think times
 * and when each disruption happens: every operation draws from its own generator split
 * off the seed's, so an outcome that differs on replay never shifts the draws of the
 * operations after it. Thread timing is not reproducible, so a replay repeats the
 * workload, not necessarily the interleaving that failed.
 */
final class ModelRun {

	static final int POOL = 20;

	private static final Duration FAR = Duration.ofMinutes(5);

	private final long seed;

	private final int ops;

	private final SplittableRandom random;

	private final long t0 = System.nanoTime();

	final ModelState state = new ModelState(this.t0);

	final InvocationLog log = new InvocationLog(
			(engine, from, to) -> this.state.disruption(Cause.STALL, engine, from, to));

	private @Nullable Thread stallWatcher;

	private @Nullable Thread redisWatcher;

	private final Map<String, Redeq> engines = new LinkedHashMap<>();

	private final List<String> generatedIds = new ArrayList<>();

	private @Nullable RedisServer server;

	private @Nullable RedisClient lettuce;

	private @Nullable Path dir;

	private @Nullable Child child;

	private int children;

	private int engineGenerations;

	private int nonces;

	private long pausedAt;

	private long resumeAt;

	ModelRun(long seed, int ops) {
		this.seed = seed;
		this.ops = ops;
		this.random = new SplittableRandom(seed);
	}

	/** Runs the whole scenario; problems are collected in {@link #state}, not thrown. */
	void run() {
		try {
			setUp();
			drive();
			finish();
		}
		catch (Throwable ex) {
			this.state.violation(null, "the run stopped with " + ex + "\n" + stackTrace(ex));
		}
		finally {
			tearDown();
		}
	}

	long seed() {
		return this.seed;
	}

	Duration elapsed() {
		return Duration.ofNanos(System.nanoTime() - this.t0);
	}

	// ---- set-up and tear-down
	// --------------------------------------------------------------

	private void setUp() throws IOException {
		this.stallWatcher = ModelWorkload
			.watchStalls((from, to) -> this.state.disruption(Cause.STALL, ModelState.THIS_JVM, from, to));
		this.dir = Files.createTempDirectory("redeq-model-");
		this.server = new RedisServer().withAppendOnly().start();
		this.lettuce = RedisClient.create(this.server.uri());
		this.redisWatcher = watchRedis();
		this.child = startChild();
		startEngine("e1");
		startEngine("e2");
		this.child.process.awaitLine((line) -> line.startsWith("READY"), Duration.ofSeconds(60));
		this.state.note(null, "seed " + this.seed + ", " + this.ops + " operations, redis " + this.server + ", engines "
				+ this.engines.keySet() + " and child " + this.child.id);
	}

	/**
	 * Pings Redis every 50 ms on a connection of its own and records a round trip longer
	 * than {@link ModelWorkload#STALL} as a stall of every engine: a Redis that stalls
	 * (an fsync with {@code appendfsync always} on a busy disk, CPU starvation) answers
	 * lease renewals late, so leases may expire.
	 */
	private Thread watchRedis() {
		RedisClient client = this.lettuce;
		Thread watcher = new Thread(() -> {
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				connection.setTimeout(Duration.ofSeconds(5));
				while (!Thread.currentThread().isInterrupted()) {
					long from = System.nanoTime();
					try {
						connection.sync().ping();
					}
					catch (RuntimeException ex) {
						// down: the outage is recorded as such
					}
					long to = System.nanoTime();
					if (to - from > ModelWorkload.STALL.toNanos()) {
						this.state.disruption(Cause.STALL, null, from, to);
					}
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
				}
			}
			catch (RuntimeException ex) {
				// the run is over
			}
		}, "model-redis-watch");
		watcher.setDaemon(true);
		watcher.start();
		return watcher;
	}

	private static void join(Thread thread) {
		try {
			thread.join(10_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void startEngine(String name) {
		this.engines.put(name, ModelWorkload.start(this.lettuce, name, this.log));
	}

	private Child startChild() {
		String id = "c" + (++this.children);
		Path file = this.dir.resolve(id + ".log");
		try {
			Files.createFile(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.log.follow(file);
		JavaProcess process = JavaProcess.start(ModelChild.class, this.server.uri().toString(), id, file.toString());
		return new Child(id, process);
	}

	private void tearDown() {
		try {
			resumeChild(true);
			// zombies (rogue handlers past their timeout) end on their own within a
			// second
			// or two
			awaitHandlersEnded();
		}
		catch (RuntimeException ex) {
			// reported by the checks already, when they ran
		}
		if (this.child != null) {
			this.child.process.close();
		}
		this.engines.values().forEach(Redeq::close);
		if (this.stallWatcher != null) {
			this.stallWatcher.interrupt();
		}
		if (this.redisWatcher != null) {
			this.redisWatcher.interrupt();
			join(this.redisWatcher);
		}
		if (this.lettuce != null) {
			this.lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
		if (this.server != null) {
			this.server.close();
		}
		if (this.dir != null) {
			try (Stream<Path> files = Files.walk(this.dir)) {
				files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
			catch (IOException ex) {
				// a temp directory left behind
			}
		}
	}

	// ---- the driver
	// ------------------------------------------------------------------------

	private void drive() {
		int killAt = at(0.15, 0.30);
		int restartAt = killAt + 3 + this.random.nextInt(15);
		int closeAt = at(0.35, 0.48);
		int pauseAt = at(0.55, 0.70);
		int redisAt = at(0.75, 0.90);
		int checkpointEvery = Math.max(100, Math.min(150, this.ops / 2));
		for (int op = 1; op <= this.ops; op++) {
			this.state.op(op);
			SplittableRandom r = this.random.split();
			resumeChild(false);
			if (op == killAt) {
				killChild();
			}
			if (op == restartAt) {
				this.child = startChild();
				this.state.note(null, "started child " + this.child.id);
			}
			if (op == closeAt) {
				closeEngine();
			}
			if (op == pauseAt) {
				pauseChild(r.split());
			}
			if (op == redisAt) {
				restartRedis(r.split());
			}
			operation(r);
			if (op % checkpointEvery == 0 && op < this.ops) {
				checkpoint("checkpoint after op " + op);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(r.nextInt(40))); // think
																					// time
		}
	}

	private int at(double from, double to) {
		return (int) Math.max(1, Math.round(this.ops * (from + this.random.nextDouble() * (to - from))));
	}

	private void operation(SplittableRandom r) {
		int roll = r.nextInt(100);
		TopicSpec topic = ModelWorkload.TOPICS.get(r.nextInt(ModelWorkload.TOPICS.size()));
		JobModel job = pick(r, topic);
		if (roll < 42) {
			schedule(r, job);
		}
		else if (roll < 50) {
			scheduleAll(r);
		}
		else if (roll < 54) {
			scheduleWithGeneratedId(r, topic);
		}
		else if (roll < 68) {
			cancel(job);
		}
		else if (roll < 80) {
			reschedule(r, job);
		}
		else if (roll < 95) {
			observe(job, "find");
		}
		else {
			requeue(job);
		}
	}

	private JobModel pick(SplittableRandom r, TopicSpec topic) {
		int n = r.nextInt(POOL);
		int generated = r.nextInt(100);
		List<JobModel> ofTopic = this.generatedIds.stream()
			.map((id) -> this.state.existing(topic.name(), id))
			.filter((m) -> m != null)
			.toList();
		if (generated < 15 && !ofTopic.isEmpty()) {
			return ofTopic.get(generated % ofTopic.size());
		}
		return this.state.job(topic, topic.idPrefix() + String.format("%02d", n));
	}

	private RedeqClient client() {
		return this.engines.values().iterator().next().client();
	}

	private RedeqAdmin admin() {
		return this.engines.values().iterator().next().admin();
	}

	// ---- what to schedule
	// ------------------------------------------------------------------

	private Behavior behavior(SplittableRandom r) {
		int roll = r.nextInt(100);
		String nonce = "n" + (++this.nonces);
		if (roll < 58) {
			return new Behavior(Kind.OK, r.nextInt(60), nonce);
		}
		if (roll < 74) {
			return new Behavior(Kind.FLAKY, 2 + r.nextInt(3), nonce);
		}
		if (roll < 88) {
			return new Behavior(Kind.FAIL, 0, nonce);
		}
		if (roll < 94) {
			return new Behavior(Kind.HANG, 0, nonce);
		}
		return new Behavior(Kind.ROGUE, 1, nonce);
	}

	/**
	 * A due time: in the past (never before 1970), now, near (0–500 ms) or far (minutes),
	 * as a delay or an instant.
	 */
	private Due due(SplittableRandom r) {
		int roll = r.nextInt(100);
		boolean asInstant = r.nextBoolean();
		if (roll < 20) {
			return Due.at("past", Instant.now().minusMillis(1 + r.nextInt(3000)));
		}
		if (roll < 30) {
			return Due.in("now", Duration.ZERO);
		}
		if (roll < 75) {
			Duration near = Duration.ofMillis(r.nextInt(501));
			return asInstant ? Due.at("near", Instant.now().plus(near)) : Due.in("near", near);
		}
		Duration far = FAR.plusSeconds(r.nextInt(15 * 60));
		return asInstant ? Due.at("far", Instant.now().plus(far)) : Due.in("far", far);
	}

	private static Duplicate policy(SplittableRandom r) {
		int roll = r.nextInt(4);
		return (roll < 2) ? Duplicate.REPLACE : (roll == 2) ? Duplicate.KEEP : Duplicate.REJECT;
	}

	private static Job job(JobModel m, Behavior behavior, Due due, Duplicate policy) {
		Job.Builder builder = Job.builder(m.topic.name()).id(m.id).payload(behavior.payload()).onDuplicate(policy);
		return ((due.at() != null) ? builder.dueAt(due.at()) : builder.delay(due.delay())).build();
	}

	// ---- operations
	// ------------------------------------------------------------------------

	private enum Outcome {

		ACCEPTED, DUPLICATE, UNANSWERED

	}

	private void schedule(SplittableRandom r, JobModel m) {
		Duplicate policy = policy(r);
		Behavior behavior = behavior(r);
		Due due = due(r);
		if (m.known == Known.ACTIVE) {
			// KEEP and REJECT of a job that may finish at any moment have no observable
			// outcome
			policy = Duplicate.REPLACE;
		}
		Instant wallStart = Instant.now();
		long start = System.nanoTime();
		Outcome outcome;
		try {
			String id = client().schedule(job(m, behavior, due, policy));
			outcome = Outcome.ACCEPTED;
			if (!m.id.equals(id)) {
				this.state.violation(m, "schedule returned id " + id + " for a job with id " + m.id);
			}
		}
		catch (DuplicateJobException ex) {
			outcome = Outcome.DUPLICATE;
		}
		catch (RedeqUnavailableException ex) {
			outcome = Outcome.UNANSWERED;
		}
		catch (RuntimeException ex) {
			this.state.violation(m, "schedule " + policy + " threw " + ex);
			outcome = Outcome.UNANSWERED;
		}
		applySchedule(m, "schedule", policy, behavior, due, outcome, start, System.nanoTime(), wallStart);
	}

	private void scheduleAll(SplittableRandom r) {
		int size = 2 + r.nextInt(4);
		List<JobModel> batch = new ArrayList<>();
		for (int i = 0; i < 20 && batch.size() < size; i++) {
			JobModel m = pick(r, ModelWorkload.TOPICS.get(r.nextInt(ModelWorkload.TOPICS.size())));
			if (m.known != Known.ACTIVE && !batch.contains(m)) {
				batch.add(m);
			}
		}
		List<Duplicate> policies = new ArrayList<>();
		List<Behavior> behaviors = new ArrayList<>();
		List<Due> dues = new ArrayList<>();
		List<Job> jobs = new ArrayList<>();
		boolean rejectionExpected = false;
		for (JobModel m : batch) {
			policies.add(policy(r));
			behaviors.add(behavior(r));
			dues.add(due(r));
			jobs.add(job(m, behaviors.get(behaviors.size() - 1), dues.get(dues.size() - 1),
					policies.get(policies.size() - 1)));
			rejectionExpected |= m.known == Known.FAR && policies.get(policies.size() - 1) == Duplicate.REJECT;
		}
		Instant wallStart = Instant.now();
		long start = System.nanoTime();
		boolean threw = false;
		boolean unanswered = false;
		try {
			List<String> ids = client().scheduleAll(jobs);
			if (!ids.equals(batch.stream().map((m) -> m.id).toList())) {
				this.state.violation(batch.get(0), "scheduleAll returned ids " + ids + " for " + batch);
			}
		}
		catch (DuplicateJobException ex) {
			threw = true;
		}
		catch (RedeqUnavailableException ex) {
			unanswered = true;
		}
		long end = System.nanoTime();
		if (!unanswered && threw != rejectionExpected) {
			this.state.violation(batch.get(0),
					"scheduleAll of " + batch + " with " + policies
							+ (threw ? " threw DuplicateJobException though no job in it is REJECT of a waiting job"
									: " returned normally though a REJECT in it duplicates a DELAYED job"));
		}
		for (int i = 0; i < batch.size(); i++) {
			JobModel m = batch.get(i);
			Outcome outcome = unanswered ? Outcome.UNANSWERED
					: (m.known == Known.FAR && policies.get(i) == Duplicate.REJECT) ? Outcome.DUPLICATE
							: Outcome.ACCEPTED;
			applySchedule(m, "scheduleAll", policies.get(i), behaviors.get(i), dues.get(i), outcome, start, end,
					wallStart);
		}
	}

	private void scheduleWithGeneratedId(SplittableRandom r, TopicSpec topic) {
		Behavior behavior = behavior(r);
		Due due = due(r);
		long start = System.nanoTime();
		String id;
		try {
			id = (due.at() != null) ? client().scheduleAt(topic.name(), behavior.payload(), due.at())
					: client().schedule(topic.name(), behavior.payload(), due.delay());
		}
		catch (RedeqUnavailableException ex) {
			this.state.violation(null, "schedule with a generated id in topic " + topic.name()
					+ " got no answer though Redis is up: " + ex);
			return;
		}
		this.generatedIds.add(id);
		JobModel m = this.state.job(topic, id);
		this.state.note(m, "schedule (generated id) " + behavior + " due " + due + " -> " + id);
		if (m.known != Known.FREE) {
			this.state.violation(m, "a generated id was handed out twice");
		}
		begin(m, behavior, due, start);
	}

	/**
	 * Applies a schedule's outcome to the model, checking it where the model is sure of
	 * the job's state.
	 */
	private void applySchedule(JobModel m, String op, Duplicate policy, Behavior behavior, Due due, Outcome outcome,
			long start, long end, Instant wallStart) {
		this.state.note(m, op + " " + policy + " " + behavior + " due " + due + " -> " + outcome + " (model: " + m.known
				+ ((m.current != null) ? " " + m.current : "") + ")");
		if (outcome == Outcome.UNANSWERED) {
			m.uncertain.add(this.state.incarnation(m, behavior, start, due.instant(), false));
			resync(m, "unanswered " + op);
			return;
		}
		boolean accepted = outcome == Outcome.ACCEPTED;
		switch (m.known) {
			case FREE -> {
				if (accepted) {
					begin(m, behavior, due, start);
				}
				else {
					this.state.violation(m, policy + " of an id that has no job threw DuplicateJobException");
					this.state.phantom(behavior, "refused");
				}
			}
			case FAR -> {
				if (policy == Duplicate.REPLACE && accepted) {
					replace(m, behavior, due, start, end);
				}
				else if (policy == Duplicate.KEEP && accepted) {
					this.state.phantom(behavior, "KEEP kept the DELAYED job");
				}
				else if (policy == Duplicate.REJECT && !accepted) {
					this.state.phantom(behavior, "REJECT refused it");
				}
				else if (!accepted) {
					this.state.violation(m, policy + " of a DELAYED job threw DuplicateJobException");
					this.state.phantom(behavior, "refused");
				}
				else {
					this.state.violation(m, "REJECT of a DELAYED job's id returned normally");
					m.uncertain.add(this.state.incarnation(m, behavior, start, due.instant(), false));
					resync(m, "REJECT accepted a duplicate");
				}
			}
			case DEAD -> scheduledOverDead(m, policy, behavior, due, accepted, start, end, wallStart);
			case ACTIVE -> {
				if (accepted) {
					replace(m, behavior, due, start, end);
				}
				else {
					this.state.note(m, "REPLACE refused: the job is running");
				}
			}
		}
	}

	/**
	 * A DEAD job has ended its life (BRIEF: done | DEAD are the ends), so it does not
	 * count as existing: every duplicate policy schedules the new job in its place, as
	 * REPLACE always did. Checked through find: the job found must be the new one
	 * (created during the call), or already gone.
	 */
	private void scheduledOverDead(JobModel m, Duplicate policy, Behavior behavior, Due due, boolean accepted,
			long start, long end, Instant wallStart) {
		if (!accepted) {
			this.state.violation(m, policy + " of a DEAD job's id threw DuplicateJobException: "
					+ "the DEAD job was treated as existing, and the new job was not scheduled");
			this.state.phantom(behavior, "refused because of a DEAD job");
			return;
		}
		Optional<JobInfo> found;
		try {
			found = client().find(m.topic.name(), m.id);
		}
		catch (RedeqUnavailableException ex) {
			m.uncertain.add(this.state.incarnation(m, behavior, start, due.instant(), false));
			resync(m, "unanswered find after a schedule over a DEAD job");
			return;
		}
		if (found.isPresent() && found.get().createdAt().isBefore(wallStart.minusMillis(50))) {
			this.state.violation(m, policy + " of a DEAD job's id was accepted but left the DEAD job in place ("
					+ found.get() + "): the DEAD job was treated as existing, and the new job was not scheduled");
			this.state.phantom(behavior, "kept because of a DEAD job");
			return;
		}
		replace(m, behavior, due, start, end);
	}

	private void begin(JobModel m, Behavior behavior, Due due, long start) {
		m.current = this.state.incarnation(m, behavior, start, due.instant(), true);
		m.known = due.isFar() ? Known.FAR : Known.ACTIVE;
	}

	private void replace(JobModel m, Behavior behavior, Due due, long start, long end) {
		if (m.current != null) {
			m.current.close(End.REPLACED, end);
		}
		begin(m, behavior, due, start);
	}

	private void cancel(JobModel m) {
		long start = System.nanoTime();
		boolean cancelled;
		try {
			cancelled = client().cancel(m.topic.name(), m.id);
		}
		catch (RedeqUnavailableException ex) {
			resync(m, "unanswered cancel");
			return;
		}
		long end = System.nanoTime();
		this.state.note(m, "cancel -> " + cancelled + " (model: " + m + ")");
		switch (m.known) {
			case FREE -> {
				if (cancelled) {
					this.state.violation(m, "cancel returned true for an id that has no job");
				}
			}
			case FAR, DEAD -> {
				if (cancelled) {
					cancelled(m, end);
				}
				else {
					this.state.violation(m, "cancel of a "
							+ ((m.known == Known.FAR) ? "job DELAYED for minutes" : "DEAD job") + " returned false");
					resync(m, "cancel refused");
				}
			}
			case ACTIVE -> {
				if (cancelled) {
					checkNotCompleted(m, "cancel", start);
					cancelled(m, end);
				}
			}
		}
	}

	private void cancelled(JobModel m, long end) {
		m.current.close(End.CANCELLED, end);
		m.current = null;
		m.known = Known.FREE;
	}

	private void reschedule(SplittableRandom r, JobModel m) {
		Due due = due(r);
		if (m.known == Known.DEAD) {
			// Whether reschedule revives a DEAD job is not settled (cancel's javadoc
			// counts
			// DEAD as waiting, reschedule's does not say), so the model does not ask.
			observe(m, "find");
			return;
		}
		long start = System.nanoTime();
		boolean moved;
		try {
			moved = (due.at() != null) ? client().reschedule(m.topic.name(), m.id, due.at())
					: client().reschedule(m.topic.name(), m.id, due.delay());
		}
		catch (RedeqUnavailableException ex) {
			resync(m, "unanswered reschedule");
			return;
		}
		this.state.note(m, "reschedule to " + due + " -> " + moved + " (model: " + m + ")");
		switch (m.known) {
			case FREE -> {
				if (moved) {
					this.state.violation(m, "reschedule returned true for an id that has no job");
					resync(m, "reschedule of nothing");
				}
			}
			case FAR -> {
				if (moved) {
					rescheduled(m, due);
				}
				else {
					this.state.violation(m, "reschedule of a job DELAYED for minutes returned false");
					resync(m, "reschedule refused");
				}
			}
			case ACTIVE -> {
				if (moved) {
					checkNotCompleted(m, "reschedule", start);
					rescheduled(m, due);
				}
			}
			case DEAD -> throw new IllegalStateException();
		}
	}

	private void rescheduled(JobModel m, Due due) {
		m.current.due = due.instant();
		m.known = due.isFar() ? Known.FAR : Known.ACTIVE;
	}

	private void requeue(JobModel m) {
		if (m.known == Known.ACTIVE) {
			observe(m, "find");
			return;
		}
		long start = System.nanoTime();
		boolean requeued;
		try {
			requeued = admin().requeueDead(m.topic.name(), m.id);
		}
		catch (RedeqUnavailableException ex) {
			resync(m, "unanswered requeueDead");
			return;
		}
		this.state.note(m, "requeueDead -> " + requeued + " (model: " + m + ")");
		if (m.known == Known.DEAD) {
			if (requeued) {
				m.current.rounds.add(new ModelState.Round(start));
				m.known = Known.ACTIVE;
			}
			else {
				this.state.violation(m, "requeueDead of a DEAD job returned false");
				resync(m, "requeue refused");
			}
		}
		else if (requeued) {
			this.state.violation(m, "requeueDead returned true for a job that is not DEAD (model: " + m.known + ")");
			resync(m, "requeue of a job that is not DEAD");
		}
	}

	/**
	 * Finds a job and checks what the model is sure of; a job the model lets run learns
	 * its end here.
	 */
	boolean observe(JobModel m, String op) {
		Optional<JobInfo> found;
		try {
			found = client().find(m.topic.name(), m.id);
		}
		catch (RedeqUnavailableException ex) {
			this.state.note(m, op + " -> no answer");
			return false;
		}
		long now = System.nanoTime();
		this.log.refresh();
		if (!op.equals("quiesce") || found.isEmpty() || found.get().state() == JobState.DEAD) {
			this.state.note(m, op + " -> " + found.map(Object::toString).orElse("none") + " (model: " + m + ")");
		}
		switch (m.known) {
			case FREE -> {
				if (found.isPresent()) {
					this.state.violation(m, "find shows " + found.get() + " for an id that has no job");
					resync(m, "a job where none should be");
				}
			}
			case FAR -> {
				if (found.isEmpty() || found.get().state() != JobState.DELAYED) {
					this.state.violation(m,
							"a job DELAYED for minutes is " + found.map(Object::toString).orElse("gone"));
					resync(m, "a far job is not DELAYED");
				}
				else if (Duration.between(m.current.due, found.get().dueAt()).abs().toMillis() > 2000) {
					this.state.violation(m, "due at " + found.get().dueAt() + " but scheduled for " + m.current.due);
				}
			}
			case DEAD -> {
				if (found.isEmpty() || found.get().state() != JobState.DEAD) {
					this.state.violation(m, "a DEAD job is " + found.map(Object::toString).orElse("gone"));
					resync(m, "a DEAD job is not DEAD");
				}
			}
			case ACTIVE -> {
				if (found.isEmpty()) {
					ended(m, now);
				}
				else if (found.get().state() == JobState.DEAD) {
					died(m, found.get(), now);
				}
			}
		}
		return m.known != Known.ACTIVE;
	}

	/**
	 * A job found gone that nobody cancelled: a handler must have returned normally for
	 * its current round.
	 */
	private void ended(JobModel m, long now) {
		ModelState.Incarnation current = m.current;
		boolean returned = this.log.of(m.topic.name(), m.id)
			.stream()
			.anyMatch((i) -> i.nonce().equals(current.behavior.nonce())
					&& current.roundAt(i.startNanos()) == current.round() && i.outcome().equals(ModelWorkload.OK));
		if (returned) {
			current.close(End.COMPLETED, now);
		}
		else {
			this.state.violation(m, "the job " + current + " is gone, but no handler returned normally for it and "
					+ "nobody cancelled it: it was lost");
			current.close(End.LOST, now);
		}
		m.current = null;
		m.known = Known.FREE;
	}

	private void died(JobModel m, JobInfo info, long now) {
		m.current.round().end(End.DEAD, now);
		m.known = Known.DEAD;
		if (info.attempts() != m.topic.maxAttempts()) {
			this.state.violation(m, "DEAD after " + info.attempts() + " attempts, but the topic allows "
					+ m.topic.maxAttempts() + ": " + info);
		}
	}

	/**
	 * A cancel or reschedule that found the job waiting, after a handler had returned
	 * normally for it, with no crash, pause or outage since that could have undone the
	 * completion.
	 */
	private void checkNotCompleted(JobModel m, String op, long at) {
		this.log.refresh();
		ModelState.Incarnation current = m.current;
		for (InvocationLog.Invocation i : this.log.of(m.topic.name(), m.id)) {
			if (i.nonce().equals(current.behavior.nonce()) && current.roundAt(i.startNanos()) == current.round()
					&& ModelChecks.clean(i, m.topic) && i.endNanos() < at && !this.state.disrupted(ModelState.ANY,
							i.engine(), i.startNanos() - ModelChecks.CLAIM_SLACK, at, m.topic)) {
				this.state.violation(m, op + " found the job waiting although " + this.state.describe(i)
						+ " had returned normally (no crash, pause or outage since)");
				return;
			}
		}
	}

	/**
	 * After an unanswered call or a contradiction the model no longer knows the job's
	 * state; a REPLACE with a due time in half an hour makes it known again. What was
	 * there before is then no longer required to end (it may have run, or not).
	 */
	private void resync(JobModel m, String why) {
		this.state.note(m, "resync: " + why);
		if (m.current != null) {
			m.current.required = false;
		}
		Behavior behavior = new Behavior(Kind.OK, 0, "r" + (++this.nonces));
		Due due = Due.in("resync", Duration.ofMinutes(30));
		long start = System.nanoTime();
		try {
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(100))
				.ignoreExceptionsInstanceOf(RedeqUnavailableException.class)
				.until(() -> {
					try {
						client().schedule(job(m, behavior, due, Duplicate.REPLACE));
						return true;
					}
					catch (DuplicateJobException ex) {
						return false;
					}
				});
		}
		catch (ConditionTimeoutException ex) {
			this.state.violation(m, "could not take the id over with REPLACE within 30 s (" + why + ")");
			return;
		}
		long end = System.nanoTime();
		for (ModelState.Incarnation unsure : m.uncertain) {
			unsure.close(End.REPLACED, end);
		}
		m.uncertain.clear();
		replace(m, behavior, due, start, end);
		this.state.note(m, "resync: REPLACE " + behavior + " due in 30 minutes -> accepted");
	}

	// ---- disruptions
	// -----------------------------------------------------------------------

	private void killChild() {
		Child doomed = this.child;
		if (doomed == null) {
			return;
		}
		awaitRunningHandler(doomed.id);
		long from = System.nanoTime();
		doomed.process.kill();
		long to = System.nanoTime();
		this.log.refresh();
		this.log.endOpen(doomed.id, to, "killed");
		this.state.disruption(Cause.KILL, doomed.id, from, to);
		this.child = null;
	}

	private void pauseChild(SplittableRandom r) {
		Child paused = this.child;
		if (paused == null) {
			return;
		}
		paused.process.awaitLine((line) -> line.startsWith("READY"), Duration.ofSeconds(60));
		awaitRunningHandler(paused.id);
		signal(paused, "STOP");
		this.pausedAt = System.nanoTime();
		long longestLease = ModelWorkload.TOPICS.stream().mapToLong((t) -> t.lease().toNanos()).max().orElseThrow();
		this.resumeAt = this.pausedAt + longestLease + TimeUnit.MILLISECONDS.toNanos(700 + r.nextInt(1000));
	}

	/**
	 * Sends SIGCONT to a paused child once its pause is over (or, with {@code force}, as
	 * soon as it is).
	 */
	private void resumeChild(boolean force) {
		if (this.pausedAt == 0 || this.child == null) {
			return;
		}
		if (force) {
			await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() >= this.resumeAt);
		}
		if (System.nanoTime() >= this.resumeAt) {
			signal(this.child, "CONT");
			this.state.disruption(Cause.PAUSE, this.child.id, this.pausedAt, System.nanoTime());
			this.pausedAt = 0;
		}
	}

	private void signal(Child target, String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(target.process.pid())).start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + target.process.pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Stops (SIGTERM) or kills (SIGKILL) Redis right after a burst of due jobs, so that
	 * claims and completions are on their way, for 0.3 to 3.5 s: sometimes longer than
	 * the command timeout (2 s), so that callers give up on commands Lettuce still
	 * delivers after it reconnects.
	 */
	private void restartRedis(SplittableRandom r) {
		boolean crash = r.nextBoolean();
		long down = 300 + r.nextInt(3200);
		long start = System.nanoTime();
		List<JobModel> burst = new ArrayList<>();
		List<Behavior> behaviors = new ArrayList<>();
		List<Due> dues = new ArrayList<>();
		List<Job> jobs = new ArrayList<>();
		for (TopicSpec topic : ModelWorkload.TOPICS) {
			for (int i = 0; i < 2 * topic.concurrency() * 3; i++) {
				JobModel m = this.state.job(topic, topic.idPrefix() + "r" + i);
				if (m.known != Known.FREE) {
					continue;
				}
				Behavior behavior = (r.nextInt(4) == 0) ? new Behavior(Kind.FLAKY, 2, "n" + (++this.nonces))
						: new Behavior(Kind.OK, 50 + r.nextInt(150), "n" + (++this.nonces));
				Due due = Due.in("near", Duration.ofMillis(r.nextInt(300)));
				burst.add(m);
				behaviors.add(behavior);
				dues.add(due);
				jobs.add(job(m, behavior, due, Duplicate.REJECT));
			}
		}
		client().scheduleAll(jobs);
		for (int i = 0; i < burst.size(); i++) {
			this.state.note(burst.get(i),
					"burst before the Redis restart: scheduleAll REJECT " + behaviors.get(i) + " due " + dues.get(i));
			begin(burst.get(i), behaviors.get(i), dues.get(i), start);
		}
		// how far into the burst Redis goes away is part of the seeded workload
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50 + r.nextInt(300)));
		long from = System.nanoTime();
		if (crash) {
			this.server.kill();
		}
		else {
			this.server.stop();
		}
		// the outage's length is part of the seeded workload, not a wait for a condition
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(down));
		this.server.start();
		await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> admin().stats("alpha") != null);
		this.state.disruption(Cause.REDIS, null, from, System.nanoTime());
		this.state.note(null, "redis " + (crash ? "killed" : "stopped") + " for " + down + " ms and started again");
	}

	/**
	 * Closes an engine of this JVM gracefully while it runs a handler (if one comes
	 * along), and starts a new one in its place.
	 */
	private void closeEngine() {
		String name = this.engines.keySet().stream().reduce((a, b) -> b).orElseThrow();
		awaitRunningHandler(name);
		Redeq closing = this.engines.remove(name);
		long from = System.nanoTime();
		closing.close();
		this.state.disruption(Cause.CLOSE, name, from, System.nanoTime());
		startEngine("e" + (3 + this.engineGenerations++));
	}

	private void awaitRunningHandler(String engine) {
		try {
			await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(20)).until(() -> {
				this.log.refresh();
				return !this.log.open(List.of(engine)).isEmpty();
			});
		}
		catch (ConditionTimeoutException ex) {
			// disrupt it anyway
		}
	}

	// ---- checkpoints and the end
	// -----------------------------------------------------------

	/**
	 * Stops operating until every due job ended, then checks counts and dead jobs against
	 * the model.
	 */
	private void checkpoint(String name) {
		resumeChild(true);
		quiesce(name);
		awaitHandlersEnded();
		ModelChecks checks = new ModelChecks(this.state, this.log, admin());
		checks.stats(name);
		checks.deadJobs(name);
	}

	private void quiesce(String name) {
		try {
			await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).until(() -> {
				boolean quiet = true;
				for (JobModel m : this.state.jobs()) {
					if (m.known == Known.ACTIVE) {
						quiet &= observe(m, "quiesce");
					}
				}
				return quiet;
			});
		}
		catch (ConditionTimeoutException ex) {
			List<String> stuck = new ArrayList<>();
			for (JobModel m : this.state.jobs()) {
				if (m.known == Known.ACTIVE) {
					stuck.add(m + " is " + client().find(m.topic.name(), m.id).map(Object::toString).orElse("gone"));
				}
			}
			this.state.violation(null, name + ": jobs did not end within 40 s: " + stuck);
			for (JobModel m : this.state.jobs()) {
				if (m.known == Known.ACTIVE) {
					this.state.violation(m, "never ended (" + name + ")");
					resync(m, "stuck");
				}
			}
		}
	}

	void awaitHandlersEnded() {
		List<String> live = new ArrayList<>(this.engines.keySet());
		if (this.child != null) {
			live.add(this.child.id);
		}
		try {
			await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).until(() -> {
				this.log.refresh();
				return this.log.all().stream().noneMatch(InvocationLog.Invocation::isOpen);
			});
		}
		catch (ConditionTimeoutException ex) {
			this.state.violation(null,
					"handler invocations still running 15 s after their jobs ended: " + this.log.all()
						.stream()
						.filter(InvocationLog.Invocation::isOpen)
						.map(this.state::describe)
						.toList());
		}
	}

	private void finish() {
		resumeChild(true);
		if (this.child == null) {
			this.child = startChild();
		}
		SplittableRandom r = this.random.split();
		probeSlots();
		for (JobModel m : this.state.jobs()) {
			if (m.known == Known.FAR) {
				if (r.nextBoolean()) {
					cancel(m);
				}
				else {
					long start = System.nanoTime();
					boolean moved = client().reschedule(m.topic.name(), m.id, Duration.ZERO);
					this.state.note(m, "reschedule to now -> " + moved + " (model: " + m + ")");
					if (!moved) {
						this.state.violation(m, "reschedule of a job DELAYED for minutes returned false");
						resync(m, "final reschedule refused");
						cancel(m);
					}
					else {
						rescheduled(m, Due.in("now", Duration.ZERO));
					}
				}
			}
		}
		checkpoint("final check");
		for (JobModel m : this.state.jobs()) {
			if (m.known == Known.FAR) {
				cancel(m); // taken over by a resync after it got stuck
			}
		}
		ModelChecks checks = new ModelChecks(this.state, this.log, admin());
		checks.invocations();
		checks.outcomes();
		checks.concurrency();
		for (TopicSpec topic : ModelWorkload.TOPICS) {
			List<JobModel> dead = this.state.jobs(topic, Known.DEAD);
			long purged = admin().purgeDead(topic.name());
			long now = System.nanoTime();
			this.state.note(null, "purgeDead " + topic.name() + " -> " + purged);
			if (purged != dead.size()) {
				this.state.violation(null, "purgeDead(" + topic.name() + ") removed " + purged + " jobs; the model has "
						+ dead.size() + " DEAD: " + dead.stream().map((m) -> m.id).toList());
			}
			for (JobModel m : dead) {
				m.current.close(End.PURGED, now);
				m.current = null;
				m.known = Known.FREE;
			}
		}
		checks.stats("after purge");
		checks.leaks(this.server, this.generatedIds);
	}

	/**
	 * After every disruption, a backlog of slow jobs in each topic: every live engine
	 * must run exactly its {@code concurrency} of them at once (a worker slot lost or
	 * doubled by a failed claim, a timeout or the outage shows here).
	 */
	private void probeSlots() {
		this.child.process.awaitLine((line) -> line.startsWith("READY"), Duration.ofSeconds(60));
		List<String> live = new ArrayList<>(this.engines.keySet());
		live.add(this.child.id);
		long from = System.nanoTime();
		for (TopicSpec topic : ModelWorkload.TOPICS) {
			List<JobModel> probes = new ArrayList<>();
			List<Behavior> behaviors = new ArrayList<>();
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < 8 * topic.concurrency() * live.size(); i++) {
				JobModel m = this.state.job(topic, topic.idPrefix() + "p" + i);
				Behavior behavior = new Behavior(Kind.OK, 400, "p" + (++this.nonces));
				probes.add(m);
				behaviors.add(behavior);
				jobs.add(job(m, behavior, Due.in("now", Duration.ZERO), Duplicate.REJECT));
			}
			long start = System.nanoTime();
			client().scheduleAll(jobs);
			for (int i = 0; i < probes.size(); i++) {
				this.state.note(probes.get(i), "slot probe: scheduleAll REJECT " + behaviors.get(i) + " due now");
				begin(probes.get(i), behaviors.get(i), Due.in("now", Duration.ZERO), start);
			}
		}
		quiesce("slot probe");
		awaitHandlersEnded();
		new ModelChecks(this.state, this.log, admin()).slots(live, from, System.nanoTime());
	}

	private static String stackTrace(Throwable ex) {
		java.io.StringWriter out = new java.io.StringWriter();
		ex.printStackTrace(new java.io.PrintWriter(out));
		return out.toString();
	}

	/** A child JVM running one engine. */
	private record Child(String id, JavaProcess process) {

	}

	/** When a job is due: after a delay from the Redis clock's now, or at an instant. */
	record Due(String label, @Nullable Duration delay, @Nullable Instant at, Instant instant) {

		static Due in(String label, Duration delay) {
			return new Due(label, delay, null, Instant.now().plus(delay));
		}

		static Due at(String label, Instant at) {
			return new Due(label, null, at, at);
		}

		boolean isFar() {
			return Duration.between(Instant.now(), this.instant).compareTo(FAR.minusMinutes(1)) > 0;
		}

		@Override
		public String toString() {
			return this.label + ((this.delay != null) ? " in " + this.delay.toMillis() + "ms" : " at " + this.at);
		}

	}

}
