package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.awaitility.core.ConditionTimeoutException;

import io.redeq.InvocationLog.Invocation;
import io.redeq.ModelState.Cause;
import io.redeq.ModelState.End;
import io.redeq.ModelState.Incarnation;
import io.redeq.ModelState.JobModel;
import io.redeq.ModelState.Known;
import io.redeq.ModelState.Round;
import io.redeq.ModelWorkload.Kind;
import io.redeq.ModelWorkload.TopicSpec;
import io.redeq.test.RedisServer;

import static org.awaitility.Awaitility.await;

/**
 * The invariants a model run checks once its jobs have ended: counts and dead jobs
 * against the model, every handler invocation against the payloads the model knows, and
 * what is left in Redis.
 */
final class ModelChecks {

	/**
	 * A handler that returned normally this much before its timeout certainly completed
	 * its attempt (the engine did not time it out first).
	 */
	private static final Duration CLEAN_MARGIN = Duration.ofMillis(150);

	/**
	 * The engine starts a handler's timeout clock a little before the handler's first log
	 * line (it reads the payload first, slowly in a cold JVM); this much is allowed.
	 */
	private static final Duration TIMEOUT_SLACK = Duration.ofMillis(150);

	/**
	 * A lease starts when the claim runs in Redis, before the handler starts: a stall or
	 * pause that ends this shortly before a handler's start may have eaten its lease.
	 */
	static final long CLAIM_SLACK = Duration.ofMillis(500).toNanos();

	/**
	 * A completion is stored after the handler returns: a disruption this shortly after
	 * may keep it from landing before the lease expires.
	 */
	private static final long COMPLETION_SLACK = Duration.ofSeconds(2).toNanos();

	/**
	 * Elements Redis may hold per bucket once every job ended and the dead were purged.
	 */
	static final int ELEMENTS_PER_BUCKET = 20;

	private final ModelState state;

	private final InvocationLog log;

	private final RedeqAdmin admin;

	ModelChecks(ModelState state, InvocationLog log, RedeqAdmin admin) {
		this.state = state;
		this.log = log;
		this.admin = admin;
	}

	/**
	 * Whether an invocation returned normally well within its timeout, so that its
	 * attempt completed.
	 */
	static boolean clean(Invocation i, TopicSpec topic) {
		return i.outcome().equals(ModelWorkload.OK)
				&& i.durationNanos() < topic.timeout().minus(CLEAN_MARGIN).toNanos();
	}

	/**
	 * Whether a rogue handler's late return may have completed its job: a stall or pause
	 * of its own process lasted from before its timeout until it returned, so that the
	 * return and the engine's overdue timeout raced when the process woke (the engine
	 * completes a job whose handler returns first; that is fine).
	 */
	boolean returnedLateAfterStall(Invocation i, TopicSpec topic) {
		boolean late = i.outcome().equals(ModelWorkload.ROGUE) && this.state.stalledThrough(i.engine(),
				i.startNanos() + topic.timeout().toNanos(), i.endNanos() - TIMEOUT_SLACK.toNanos());
		if (late) {
			this.state.excused(null,
					"a rogue handler's late return completed its job, its process stalled over the timeout",
					this.state.describe(i));
		}
		return late;
	}

	/**
	 * {@code admin.stats} equals the model: FAR jobs delayed, DEAD jobs dead, nothing
	 * else.
	 */
	void stats(String when) {
		for (TopicSpec topic : ModelWorkload.TOPICS) {
			TopicStats expected = new TopicStats(topic.name(), this.state.jobs(topic, Known.FAR).size(), 0, 0,
					this.state.jobs(topic, Known.DEAD).size());
			AtomicReference<TopicStats> last = new AtomicReference<>();
			try {
				await().atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(100))
					.ignoreExceptionsInstanceOf(RedeqUnavailableException.class)
					.until(() -> {
						last.set(this.admin.stats(topic.name()));
						return expected.equals(last.get());
					});
			}
			catch (ConditionTimeoutException ex) {
				this.state.violation(null,
						when + ": stats " + last.get() + " once quiet, but the model expects " + expected
								+ " (DELAYED: " + ids(this.state.jobs(topic, Known.FAR)) + ", DEAD: "
								+ ids(this.state.jobs(topic, Known.DEAD)) + ")");
			}
		}
	}

	/**
	 * {@code admin.deadJobs} lists exactly the model's DEAD jobs, each with its payload,
	 * all attempts and a reason.
	 */
	void deadJobs(String when) {
		this.log.refresh();
		for (TopicSpec topic : ModelWorkload.TOPICS) {
			List<DeadJob> dead = this.admin.deadJobs(topic.name(), 0, 1000);
			Map<String, JobModel> expected = new HashMap<>();
			this.state.jobs(topic, Known.DEAD).forEach((m) -> expected.put(m.id, m));
			Set<String> listed = dead.stream().map(DeadJob::id).collect(Collectors.toSet());
			if (!listed.equals(expected.keySet())) {
				this.state.violation(null, when + ": deadJobs(" + topic.name() + ") lists " + new TreeSet<>(listed)
						+ " but the model has DEAD " + new TreeSet<>(expected.keySet()));
			}
			for (DeadJob job : dead) {
				JobModel m = expected.get(job.id());
				if (m == null) {
					continue;
				}
				Incarnation incarnation = m.current;
				if (job.lastError() == null || job.lastError().isBlank()) {
					this.state.violation(m, "DEAD without a reason: " + job);
				}
				if (job.attempts() != topic.maxAttempts()) {
					this.state.violation(m,
							"DEAD after " + job.attempts() + " of " + topic.maxAttempts() + " attempts");
				}
				if (!job.payload().contains(incarnation.behavior.nonce())) {
					this.state.violation(m, "the DEAD job's payload is " + job.payload() + ", the model's "
							+ incarnation.behavior.payload());
				}
				List<Invocation> last = roundInvocations(incarnation, incarnation.round()).stream()
					.filter((i) -> i.attempt() == topic.maxAttempts())
					.toList();
				// a process stalled, paused or cut off from Redis around the last attempt
				// may lose its lease before the failure is stored: then the reason
				// is the lease
				if (last.size() == 1 && last.get(0).outcome().equals(ModelWorkload.THREW)
						&& !this.state.disrupted(ModelState.ANY, last.get(0).engine(),
								last.get(0).startNanos() - 2_000_000_000L, last.get(0).endNanos() + 2_000_000_000L,
								topic)
						&& (incarnation.behavior.kind() == Kind.FAIL || incarnation.behavior.kind() == Kind.FLAKY)
						&& job.lastError() != null
						&& !job.lastError().contains(incarnation.behavior.failureMessage(topic.maxAttempts()))) {
					this.state.violation(m,
							"the last attempt threw '" + incarnation.behavior.failureMessage(topic.maxAttempts())
									+ "' but the DEAD job's last error is '" + job.lastError() + "'");
				}
			}
		}
	}

	/**
	 * Every invocation ran a payload the model stored and had not cancelled or replaced;
	 * no two invocations of one job overlapped while a lease was alive; no hanging
	 * handler outlived its timeout.
	 */
	void invocations() {
		this.log.refresh();
		Map<String, List<Invocation>> byJob = new LinkedHashMap<>();
		for (Invocation i : this.log.all()) {
			byJob.computeIfAbsent(i.topic() + "/" + i.id(), (k) -> new ArrayList<>()).add(i);
		}
		for (List<Invocation> invocations : byJob.values()) {
			Invocation first = invocations.get(0);
			JobModel m = this.state.existing(first.topic(), first.id());
			TopicSpec topic = ModelWorkload.topic(first.topic());
			for (Invocation i : invocations) {
				Incarnation incarnation = this.state.byNonce(i.nonce());
				String phantom = this.state.phantom(i.nonce());
				if (phantom != null) {
					this.state.violation(m,
							this.state.describe(i) + " ran a payload that schedule did not store (" + phantom + ")");
				}
				else if (incarnation == null) {
					this.state.violation(m, this.state.describe(i) + " ran a payload the model never scheduled");
				}
				else if (i.startNanos() > incarnation.closedNanos) {
					this.state.violation(m, this.state.describe(i) + " started after the job was "
							+ incarnation.closedBy + " at " + this.state.t(incarnation.closedNanos));
				}
				// a pause freezes the engine's timeout timer, not the
				// handler's own deadline
				if (i.outcome().equals(ModelWorkload.OUTLIVED)
						&& !this.state.disrupted(ModelState.PAUSES, i.engine(), i.startNanos(), i.endNanos(), topic)) {
					this.state.violation(m, this.state.describe(i) + " was not interrupted at its timeout of "
							+ topic.timeout().toMillis() + " ms");
				}
			}
			overlaps(m, topic, invocations);
		}
	}

	/**
	 * Two invocations of one job may overlap only when the first had lost its lease: its
	 * handler ran past the timeout and ignored the interrupt (the engine gave the attempt
	 * up; it cannot stop a thread), its process was paused (SIGSTOP) or Redis was down
	 * meanwhile, or the second was claimed before a pause of its own process and started
	 * only after it.
	 */
	private void overlaps(JobModel m, TopicSpec topic, List<Invocation> invocations) {
		for (int x = 0; x < invocations.size(); x++) {
			Invocation a = invocations.get(x);
			for (int y = x + 1; y < invocations.size(); y++) {
				Invocation b = invocations.get(y);
				if (b.startNanos() >= a.endNanos()) {
					continue;
				}
				boolean timedOut = b.startNanos() - a.startNanos() >= topic.timeout().minus(TIMEOUT_SLACK).toNanos();
				boolean leaseLost = this.state.disrupted(ModelState.LEASE_LOSSES, a.engine(),
						a.startNanos() - CLAIM_SLACK, b.startNanos(), topic);
				boolean startedLate = this.state.pauseEndedShortlyBefore(b.engine(), b.startNanos(), 2_000_000_000L,
						topic);
				if (timedOut) {
					this.state.excused(m, "overlap, the first handler ran past its timeout",
							this.state.describe(a) + " / " + this.state.describe(b));
				}
				else if (leaseLost || startedLate) {
					this.state.excused(m, "overlap, a pause, stall or outage let a lease expire",
							this.state.describe(a) + " / " + this.state.describe(b));
				}
				if (!timedOut && !leaseLost && !startedLate) {
					boolean closing = this.state.disrupted(EnumSet.of(Cause.CLOSE), a.engine(), a.startNanos(),
							b.startNanos(), topic);
					this.state.violation(m, "two handlers ran the job at once: " + this.state.describe(b)
							+ " started while " + this.state.describe(a) + " still ran, "
							+ (b.startNanos() - a.startNanos()) / 1_000_000 + " ms into its "
							+ topic.timeout().toMillis() + " ms timeout, its process not paused and Redis up"
							+ (closing ? "; " + a.engine() + " was being closed meanwhile and handed the job back "
									+ "while its handler still ran" : ""));
				}
			}
		}
	}

	/**
	 * Per incarnation and round of attempts: each attempt number reached a handler once,
	 * none was skipped, nothing ran again after a completed attempt, and the end (done or
	 * DEAD) is the one the payload's behaviour leads to, unless a disruption explains it.
	 */
	void outcomes() {
		this.log.refresh();
		for (Incarnation incarnation : this.state.incarnations()) {
			JobModel m = incarnation.job;
			TopicSpec topic = m.topic;
			if (incarnation.required && incarnation.round().end == null && incarnation.closedBy == null) {
				this.state.violation(m, incarnation + " never ended");
			}
			for (Round round : incarnation.rounds) {
				List<Invocation> invocations = roundInvocations(incarnation, round);
				long until = Math.min(round.endNanos, System.nanoTime());
				Map<Integer, List<Invocation>> byAttempt = new HashMap<>();
				invocations.forEach((i) -> byAttempt.computeIfAbsent(i.attempt(), (a) -> new ArrayList<>()).add(i));
				for (List<Invocation> same : byAttempt.values()) {
					if (same.size() > 1 && crashed(same, round.start, until, topic)) {
						this.state.excused(m, "attempt ran twice, a process was killed, paused or stalled",
								same.stream().map(this.state::describe).toList().toString());
					}
					if (same.size() > 1 && !crashed(same, round.start, until, topic)) {
						this.state.violation(m,
								"attempt " + same.get(0).attempt() + " of " + incarnation + " ran " + same.size()
										+ " times: "
										+ same.stream().map(this.state::describe).collect(Collectors.joining(", ")));
					}
				}
				int highest = (round.end == End.DEAD) ? topic.maxAttempts()
						: byAttempt.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
				List<Integer> skipped = new ArrayList<>();
				for (int attempt = 1; attempt <= highest; attempt++) {
					if (!byAttempt.containsKey(attempt)) {
						skipped.add(attempt);
					}
				}
				// A skipped attempt is excused only where its lease may have lapsed
				// before a
				// handler started: a kill (the log cannot see one between the engine
				// starting the handler and the handler's first line), or a pause, a stall
				// or
				// a Redis outage long enough for a lease to expire while the job was
				// claimed
				// and still waited for a handler's turn (the consumer's workers then drop
				// it
				// unstarted: its claim is gone and the job may run elsewhere, exactly as
				// after a crash). Otherwise a claim that no handler ran must not cost an
				// attempt, and a paused or stalled handler logs its attempt when it
				// resumes.
				boolean leaseMayHaveLapsed = this.state.leaseMayHaveLapsed(round.start, until, topic);
				if (!skipped.isEmpty() && leaseMayHaveLapsed) {
					this.state.excused(m,
							"skipped attempt, a process was killed, paused or stalled, or Redis was down, "
									+ "long enough for a lease to lapse",
							skipped + " of " + incarnation);
				}
				if (!skipped.isEmpty() && !leaseMayHaveLapsed) {
					this.state.violation(m,
							"attempt(s) " + skipped + " of " + incarnation + " never reached a handler ("
									+ "no process was killed, paused or stalled, and Redis was not down meanwhile): "
									+ "attempts burnt" + ((round.end == End.DEAD) ? ", and the job is DEAD" : "")
									+ "; handlers saw " + invocations.stream().map(this.state::describe).toList());
				}
				ranAgainAfterCompletion(m, incarnation, invocations);
				if (round.end == End.COMPLETED && incarnation.behavior.dies(topic.maxAttempts())
						&& invocations.stream().noneMatch((i) -> returnedLateAfterStall(i, topic))) {
					this.state.violation(m, incarnation + " completed, but its handler never returned normally "
							+ "within its timeout: it should be DEAD");
				}
				// a handler that returned normally but too late was rightly timed out
				boolean slow = invocations.stream()
					.anyMatch((i) -> i.outcome().equals(ModelWorkload.OK) && !clean(i, topic));
				if (round.end == End.DEAD && !incarnation.behavior.dies(topic.maxAttempts()) && skipped.isEmpty()
						&& !slow
						&& invocations.stream()
							.noneMatch((i) -> this.state.disrupted(ModelState.ANY, i.engine(),
									i.startNanos() - CLAIM_SLACK, afterEnd(i), topic))) {
					this.state.violation(m,
							incarnation + " is DEAD, but with " + topic.maxAttempts()
									+ " attempts and no disruption its behaviour completes; handlers saw "
									+ invocations.stream().map(this.state::describe).toList());
				}
			}
		}
	}

	/**
	 * No engine ever runs more handlers of a topic at once than its {@code concurrency};
	 * a handler counts until it returns or its timeout, whichever is first (at the
	 * timeout the engine gives the slot back even if the handler ignores the interrupt).
	 */
	void concurrency() {
		this.log.refresh();
		Map<String, List<Invocation>> byEngineAndTopic = new LinkedHashMap<>();
		for (Invocation i : this.log.all()) {
			byEngineAndTopic.computeIfAbsent(i.engine() + " " + i.topic(), (k) -> new ArrayList<>()).add(i);
		}
		byEngineAndTopic.forEach((key, invocations) -> {
			TopicSpec topic = ModelWorkload.topic(invocations.get(0).topic());
			Peak peak = peak(invocations, topic, 0, Long.MAX_VALUE);
			if (peak.count() > topic.concurrency()) {
				this.state.violation(null, key + " ran " + peak.count() + " handlers at once at "
						+ this.state.t(peak.at()) + " with concurrency " + topic.concurrency());
			}
		});
	}

	/**
	 * With a backlog of slow jobs between {@code from} and {@code to}, every engine of
	 * {@code engines} ran exactly {@code concurrency} handlers of each topic at once.
	 */
	void slots(List<String> engines, long from, long to) {
		this.log.refresh();
		for (String engine : engines) {
			for (TopicSpec topic : ModelWorkload.TOPICS) {
				List<Invocation> invocations = this.log.all()
					.stream()
					.filter((i) -> i.engine().equals(engine) && i.topic().equals(topic.name()))
					.toList();
				Peak peak = peak(invocations, topic, from, to);
				if (peak.count() != topic.concurrency()) {
					this.state.violation(null,
							"with a backlog of slow jobs, " + engine + " ran at most " + peak.count() + " handlers of "
									+ topic.name() + " at once, but its concurrency is " + topic.concurrency()
									+ " (worker slots lost after the disruptions?)");
				}
			}
		}
	}

	private static Peak peak(List<Invocation> invocations, TopicSpec topic, long from, long to) {
		List<long[]> events = new ArrayList<>();
		for (Invocation i : invocations) {
			long end = Math.min(i.endNanos(), i.startNanos() + topic.timeout().minus(TIMEOUT_SLACK).toNanos());
			if (i.startNanos() >= from && i.startNanos() <= to) {
				events.add(new long[] { i.startNanos(), 1 });
				events.add(new long[] { end, -1 });
			}
		}
		events.sort((a, b) -> (a[0] != b[0]) ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
		int running = 0;
		int most = 0;
		long at = 0;
		for (long[] event : events) {
			running += (int) event[1];
			if (running > most) {
				most = running;
				at = event[0];
			}
		}
		return new Peak(most, at);
	}

	private static long afterEnd(Invocation i) {
		return i.isOpen() ? InvocationLog.OPEN : i.endNanos() + COMPLETION_SLACK;
	}

	private boolean crashed(List<Invocation> same, long from, long to, TopicSpec topic) {
		return same.stream().anyMatch((i) -> this.state.disrupted(ModelState.CRASHES, i.engine(), from, to, topic));
	}

	/**
	 * After an attempt completed (its handler returned within its timeout) the job runs
	 * again only if the completion may not have reached Redis: its process was killed or
	 * paused, or Redis was down, before the next run.
	 */
	private void ranAgainAfterCompletion(JobModel m, Incarnation incarnation, List<Invocation> invocations) {
		for (Invocation done : invocations) {
			if (!clean(done, m.topic)) {
				continue;
			}
			for (Invocation again : invocations) {
				boolean lost = this.state.disrupted(EnumSet.of(Cause.KILL, Cause.PAUSE, Cause.STALL, Cause.REDIS),
						done.engine(), done.startNanos() - CLAIM_SLACK, again.startNanos(), m.topic);
				if (again.startNanos() > done.endNanos() && lost) {
					this.state.excused(m, "ran again after completing, its completion may have been lost",
							this.state.describe(done) + " then " + this.state.describe(again));
				}
				if (again.startNanos() > done.endNanos() && !lost) {
					this.state.violation(m, incarnation + " ran again after it completed: " + this.state.describe(done)
							+ " returned normally, then " + this.state.describe(again));
					return;
				}
			}
		}
	}

	private List<Invocation> roundInvocations(Incarnation incarnation, Round round) {
		return this.log.of(incarnation.job.topic.name(), incarnation.job.id)
			.stream()
			.filter((i) -> i.nonce().equals(incarnation.behavior.nonce())
					&& incarnation.roundAt(i.startNanos()) == round)
			.toList();
	}

	/**
	 * Once every job ended and the dead were purged, Redis holds only bounded metadata:
	 * the elements of all keys of the prefix (hash fields, zset and set members, list
	 * entries, non-empty strings) stay below a bound that does not grow with the number
	 * of jobs, and no element names a job.
	 */
	void leaks(RedisServer server, Collection<String> generatedIds) {
		int bound = ELEMENTS_PER_BUCKET * ModelWorkload.BUCKETS;
		AtomicReference<Scan> last = new AtomicReference<>();
		RedisClient client = RedisClient.create(server.uri());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			try {
				await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500)).until(() -> {
					last.set(scan(redis, generatedIds));
					return last.get().total() <= bound && last.get().mentions().isEmpty();
				});
				this.state.note(null, "Redis holds " + last.get().total() + " elements under prefix '"
						+ ModelWorkload.PREFIX + "' (bound " + bound + "): " + last.get().sizes());
			}
			catch (ConditionTimeoutException ex) {
				this.state.violation(null,
						"after every job ended and the DEAD were purged, Redis holds " + last.get().total()
								+ " elements under prefix '" + ModelWorkload.PREFIX + "' (bound " + bound
								+ "); per key: " + last.get().sizes() + "; elements that name a job: "
								+ last.get().mentions().stream().limit(20).toList());
			}
		}
		finally {
			client.shutdown();
		}
	}

	private static Scan scan(RedisCommands<String, String> redis, Collection<String> generatedIds) {
		Set<String> keys = new HashSet<>();
		for (String pattern : List.of(ModelWorkload.PREFIX + ":*", "{" + ModelWorkload.PREFIX + ":*")) {
			ScanCursor cursor = ScanCursor.INITIAL;
			for (int round = 0; round < 10_000 && !cursor.isFinished(); round++) {
				KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(500));
				keys.addAll(page.getKeys());
				cursor = page;
			}
		}
		Map<String, Long> sizes = new LinkedHashMap<>();
		List<String> mentions = new ArrayList<>();
		long total = 0;
		for (String key : new TreeSet<>(keys)) {
			List<String> elements = switch (redis.type(key)) {
				case "hash" ->
					redis.hgetall(key).entrySet().stream().map((e) -> e.getKey() + "=" + e.getValue()).toList();
				case "zset" -> redis.zrange(key, 0, -1);
				case "list" -> redis.lrange(key, 0, -1);
				case "set" -> List.copyOf(redis.smembers(key));
				case "string" -> {
					String value = redis.get(key);
					yield (value == null || value.isEmpty()) ? List.of() : List.of(value);
				}
				default -> List.of("<" + redis.type(key) + ">");
			};
			sizes.put(key, (long) elements.size());
			total += elements.size();
			for (String element : elements) {
				if (!isBucketField(key, element) && names(key + " " + element, generatedIds)) {
					mentions.add(key + ": " + element);
				}
			}
		}
		return new Scan(total, sizes, mentions);
	}

	/**
	 * The fields a bucket's count hash keeps about the bucket itself: the due time its
	 * migrators were told of and the layout of a reshard. Their names start with the
	 * character job ids carry; their values are a time and a bucket count.
	 */
	private static boolean isBucketField(String key, String element) {
		return key.endsWith(":count") && (element.startsWith("~next=") || element.startsWith("~buckets="));
	}

	private static boolean names(String text, Collection<String> generatedIds) {
		return text.contains(ModelWorkload.ID_MARK) || generatedIds.stream().anyMatch(text::contains);
	}

	private static List<String> ids(List<JobModel> jobs) {
		return jobs.stream().map((m) -> m.id).sorted().toList();
	}

	private record Peak(int count, long at) {

	}

	private record Scan(long total, Map<String, Long> sizes, List<String> mentions) {

	}

}
