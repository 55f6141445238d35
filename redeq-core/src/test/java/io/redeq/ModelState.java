package io.redeq;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import io.redeq.InvocationLog.Invocation;
import io.redeq.ModelWorkload.Behavior;
import io.redeq.ModelWorkload.TopicSpec;

/**
 * What a model run knows about its jobs: per job id what the test is sure of, every
 * payload it scheduled (an incarnation), the disruptions it caused, and the problems it
 * found, with the history of each job for the report.
 */
final class ModelState {

	/**
	 * The engine name of a stall of this JVM: it matches every engine that runs here (e1,
	 * e2, ...).
	 */
	static final String THIS_JVM = "e*";

	/** What can end a process's handlers or claims without the engine's say. */
	static final Set<Cause> CRASHES = EnumSet.of(Cause.KILL, Cause.PAUSE, Cause.STALL);

	/** What can let a live handler's lease expire. */
	static final Set<Cause> LEASE_LOSSES = EnumSet.of(Cause.PAUSE, Cause.STALL, Cause.REDIS);

	static final Set<Cause> PAUSES = EnumSet.of(Cause.PAUSE, Cause.STALL);

	static final Set<Cause> ANY = EnumSet.allOf(Cause.class);

	private final long t0;

	private final Map<String, JobModel> jobs = new LinkedHashMap<>();

	private final Map<String, Incarnation> byNonce = new LinkedHashMap<>();

	private final Map<String, String> phantoms = new LinkedHashMap<>();

	private final List<Disruption> disruptions = new ArrayList<>();

	private final List<Violation> violations = new ArrayList<>();

	private final List<String> trace = new ArrayList<>();

	private final Map<String, Integer> excused = new TreeMap<>();

	private int op;

	ModelState(long t0) {
		this.t0 = t0;
	}

	synchronized void op(int op) {
		this.op = op;
	}

	synchronized int currentOp() {
		return this.op;
	}

	synchronized JobModel job(TopicSpec topic, String id) {
		return this.jobs.computeIfAbsent(topic.name() + "/" + id, (key) -> new JobModel(topic, id));
	}

	synchronized Collection<JobModel> jobs() {
		return List.copyOf(this.jobs.values());
	}

	synchronized List<JobModel> jobs(TopicSpec topic, Known known) {
		return this.jobs.values().stream().filter((m) -> m.topic == topic && m.known == known).toList();
	}

	synchronized @Nullable JobModel existing(String topic, String id) {
		return this.jobs.get(topic + "/" + id);
	}

	/** A payload that was scheduled and (maybe, when not required) stored. */
	synchronized Incarnation incarnation(JobModel job, Behavior behavior, long start, @Nullable Instant due,
			boolean required) {
		Incarnation incarnation = new Incarnation(job, behavior, start, due, required);
		this.byNonce.put(behavior.nonce(), incarnation);
		return incarnation;
	}

	synchronized @Nullable Incarnation byNonce(String nonce) {
		return this.byNonce.get(nonce);
	}

	synchronized Collection<Incarnation> incarnations() {
		return List.copyOf(this.byNonce.values());
	}

	/** A payload that redeq was right to refuse (KEEP or REJECT of a waiting job). */
	synchronized void phantom(Behavior behavior, String why) {
		this.phantoms.put(behavior.nonce(), why);
	}

	synchronized @Nullable String phantom(String nonce) {
		return this.phantoms.get(nonce);
	}

	synchronized void disruption(Cause cause, @Nullable String engine, long from, long to) {
		this.disruptions.add(new Disruption(cause, engine, from, to));
		this.trace.add(t(from) + " .. " + t(to) + " " + cause + ((engine != null) ? " " + engine : ""));
	}

	private String describe(Disruption d) {
		return d.cause() + ((d.engine() != null) ? "(" + d.engine() + ")" : "") + " " + t(d.from()) + ".." + t(d.to());
	}

	/**
	 * Whether one of {@code causes} touched {@code engine} (null: any engine) between
	 * {@code from} and {@code to}. A stall counts only if it lasted half the topic's
	 * lease: renewals come every third of it, so a shorter one cannot let a lease expire.
	 */
	synchronized boolean disrupted(Set<Cause> causes, @Nullable String engine, long from, long to, TopicSpec topic) {
		for (Disruption d : this.disruptions) {
			if (causes.contains(d.cause()) && matches(d, engine) && d.from() <= to && d.to() >= from
					&& longEnough(d, topic)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether, between {@code from} and {@code to}, some lease of {@code topic} may have
	 * expired although no handler ran late: a process was killed or paused, or a stall or
	 * a Redis outage lasted half the topic's lease (renewals come every third of it).
	 * @param from start of the window, nanos
	 * @param to end of the window, nanos
	 * @param topic the topic, whose lease counts
	 * @return whether such a disruption overlapped the window
	 */
	synchronized boolean leaseMayHaveLapsed(long from, long to, TopicSpec topic) {
		for (Disruption d : this.disruptions) {
			boolean lapses = switch (d.cause()) {
				case KILL, PAUSE -> true;
				case STALL, REDIS -> d.to() - d.from() >= topic.lease().toNanos() / 2;
				case CLOSE -> false;
			};
			if (lapses && d.from() <= to && d.to() >= from) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether a pause or stall of {@code engine} ended in the {@code window} before
	 * {@code nanos}.
	 */
	synchronized boolean pauseEndedShortlyBefore(String engine, long nanos, long window, TopicSpec topic) {
		for (Disruption d : this.disruptions) {
			if (PAUSES.contains(d.cause()) && matches(d, engine) && d.to() <= nanos && d.to() >= nanos - window
					&& longEnough(d, topic)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether a pause or stall of {@code engine}'s own process (not of Redis) lasted from
	 * {@code from} or earlier until {@code to} or later.
	 */
	synchronized boolean stalledThrough(String engine, long from, long to) {
		for (Disruption d : this.disruptions) {
			if (PAUSES.contains(d.cause()) && d.engine() != null && matches(d, engine) && d.from() <= from
					&& d.to() >= to) {
				return true;
			}
		}
		return false;
	}

	private static boolean longEnough(Disruption d, TopicSpec topic) {
		return d.cause() != Cause.STALL || d.to() - d.from() >= topic.lease().toNanos() / 2;
	}

	private static boolean matches(Disruption d, @Nullable String engine) {
		return d.engine() == null || engine == null || d.engine().equals(engine)
				|| (d.engine().equals(THIS_JVM) && engine.startsWith("e"));
	}

	synchronized void note(@Nullable JobModel job, String text) {
		String line = t(System.nanoTime()) + " op " + this.op + " " + text;
		this.trace.add(line);
		if (job != null) {
			job.history.add(line);
		}
	}

	synchronized void violation(@Nullable JobModel job, String message) {
		long now = System.nanoTime();
		this.violations.add(new Violation(this.op, now, job, message));
		String line = t(now) + " op " + this.op + " VIOLATION " + ((job != null) ? job.key() + ": " : "") + message;
		this.trace.add(line);
		if (job != null) {
			job.history.add(line);
		}
	}

	/**
	 * Counts an observation that a disruption explained, to show how lenient a run was.
	 */
	synchronized void excused(@Nullable JobModel job, String what, String detail) {
		this.excused.merge(what, 1, Integer::sum);
		String line = t(System.nanoTime()) + " op " + this.op + " explained (" + what + "): "
				+ ((job != null) ? job.key() + ": " : "") + detail;
		this.trace.add(line);
		if (job != null) {
			job.history.add(line);
		}
	}

	synchronized Map<String, Integer> excused() {
		return new TreeMap<>(this.excused);
	}

	synchronized List<Violation> violations() {
		return List.copyOf(this.violations);
	}

	synchronized List<String> trace() {
		return List.copyOf(this.trace);
	}

	String t(long nanos) {
		return String.format(Locale.ROOT, "%.3fs", (nanos - this.t0) / 1e9);
	}

	String describe(Invocation i) {
		return i.engine() + " " + i.nonce() + " attempt " + i.attempt() + " " + t(i.startNanos()) + ".."
				+ (i.isOpen() ? "running" : t(i.endNanos())) + " " + i.outcome();
	}

	/**
	 * The report of all problems: each with its job's history (operations and
	 * invocations, by time) and the disruptions of the run.
	 */
	synchronized String report(long seed, String replay, InvocationLog log) {
		StringBuilder out = new StringBuilder();
		out.append(this.violations.size())
			.append(" problem(s) with seed ")
			.append(seed)
			.append(". Replay: ")
			.append(replay)
			.append('\n');
		out.append("Disruptions: ")
			.append(this.disruptions.stream()
				.filter((d) -> d.cause() != Cause.STALL)
				.map(this::describe)
				.collect(Collectors.joining(", ")))
			.append('\n');
		out.append("Stalls the JVMs measured (> ")
			.append(ModelWorkload.STALL.toMillis())
			.append(" ms): ")
			.append(this.disruptions.stream()
				.filter((d) -> d.cause() == Cause.STALL)
				.map(this::describe)
				.collect(Collectors.joining(", ")))
			.append('\n');
		int n = 0;
		List<JobModel> shown = new ArrayList<>();
		for (Violation v : this.violations) {
			out.append(++n)
				.append(") op ")
				.append(v.op())
				.append(" at ")
				.append(t(v.nanos()))
				.append(": ")
				.append((v.job() != null) ? v.job().key() + ": " : "")
				.append(v.message())
				.append('\n');
			if (v.job() != null && !shown.contains(v.job())) {
				shown.add(v.job());
			}
		}
		for (JobModel job : shown) {
			out.append("History of ").append(job.key()).append(":\n");
			List<String> lines = new ArrayList<>(job.history);
			for (Invocation i : log.of(job.topic.name(), job.id)) {
				lines.add(t(i.startNanos()) + " invocation " + describe(i));
			}
			lines.sort((a, b) -> Double.compare(seconds(a), seconds(b)));
			int from = Math.max(0, lines.size() - 60);
			if (from > 0) {
				out.append("  (").append(from).append(" earlier lines left out)\n");
			}
			lines.subList(from, lines.size()).forEach((line) -> out.append("  ").append(line).append('\n'));
		}
		return out.toString();
	}

	private static double seconds(String line) {
		return Double.parseDouble(line.substring(0, line.indexOf('s')));
	}

	/** What the model is sure of about an id. */
	enum Known {

		/**
		 * No job: never scheduled, cancelled, completed (seen gone after a handler
		 * returned) or purged.
		 */
		FREE,

		/** DELAYED for minutes: no handler can have it during the run. */
		FAR,

		/**
		 * Due (or soon due): anywhere in DELAYED, READY, IN_FLIGHT, DEAD or done until a
		 * find says.
		 */
		ACTIVE,

		/**
		 * Seen DEAD by find; only cancel, requeue, a schedule or a purge changes that.
		 */
		DEAD

	}

	/** How an incarnation's round ended. */
	enum End {

		COMPLETED, DEAD, CANCELLED, REPLACED, PURGED, LOST

	}

	/** Something the test did to the system that may explain a re-run or an overlap. */
	enum Cause {

		/** SIGKILL of a child JVM. */
		KILL,

		/** SIGSTOP of a child JVM, until SIGCONT. */
		PAUSE,

		/**
		 * A stall a JVM measured in itself (GC, CPU starvation): as good as a pause for a
		 * lease.
		 */
		STALL,

		/** Redis stopped or killed, until it answers again. */
		REDIS,

		/** A graceful close of an engine. */
		CLOSE

	}

	/**
	 * A disruption between two System.nanoTime values; {@code engine} null means every
	 * engine.
	 */
	record Disruption(Cause cause, @Nullable String engine, long from, long to) {

	}

	/** A problem: an observation the model does not allow. */
	record Violation(int op, long nanos, @Nullable JobModel job, String message) {

	}

	/** The model of one job id. */
	static final class JobModel {

		final TopicSpec topic;

		final String id;

		Known known = Known.FREE;

		@Nullable Incarnation current;

		/** Payloads of unanswered calls, which may or may not have been stored. */
		final List<Incarnation> uncertain = new ArrayList<>();

		final List<String> history = new ArrayList<>();

		JobModel(TopicSpec topic, String id) {
			this.topic = topic;
			this.id = id;
		}

		String key() {
			return this.topic.name() + "/" + this.id;
		}

		@Override
		public String toString() {
			return key() + "(" + this.known + ((this.current != null) ? " " + this.current.behavior : "") + ")";
		}

	}

	/**
	 * One stored payload of a job id, from the schedule that stored it until a cancel, a
	 * replace or a purge; a requeue of its DEAD job starts a new round of attempts.
	 */
	static final class Incarnation {

		final JobModel job;

		final Behavior behavior;

		/** Whether the model requires it to end COMPLETED or DEAD. */
		boolean required;

		@Nullable Instant due;

		final List<Round> rounds = new ArrayList<>();

		/**
		 * When the payload stopped existing (cancel, replace, purge); no handler may
		 * start it later.
		 */
		long closedNanos = InvocationLog.OPEN;

		@Nullable End closedBy;

		Incarnation(JobModel job, Behavior behavior, long start, @Nullable Instant due, boolean required) {
			this.job = job;
			this.behavior = behavior;
			this.due = due;
			this.required = required;
			this.rounds.add(new Round(start));
		}

		Round round() {
			return this.rounds.get(this.rounds.size() - 1);
		}

		/** The round an invocation that started at {@code nanos} belongs to. */
		Round roundAt(long nanos) {
			Round found = this.rounds.get(0);
			for (Round round : this.rounds) {
				if (round.start <= nanos) {
					found = round;
				}
			}
			return found;
		}

		void close(End end, long nanos) {
			if (this.closedBy == null) {
				this.closedBy = end;
				this.closedNanos = nanos;
			}
			if (round().end == null) {
				round().end(end, nanos);
			}
		}

		int maxAttempts() {
			return this.job.topic.maxAttempts();
		}

		@Override
		public String toString() {
			return this.behavior.toString();
		}

	}

	/** One set of attempts of an incarnation: from its schedule or from a requeue. */
	static final class Round {

		final long start;

		@Nullable End end;

		long endNanos = InvocationLog.OPEN;

		Round(long start) {
			this.start = start;
		}

		void end(End end, long nanos) {
			this.end = end;
			this.endNanos = nanos;
		}

	}

}
