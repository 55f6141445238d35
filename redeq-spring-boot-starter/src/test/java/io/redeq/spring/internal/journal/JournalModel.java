package io.redeq.spring.internal.journal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.spring.internal.journal.JournalModelRecorder.Payload;
import io.redeq.spring.internal.journal.JournalModelRecorder.Run;
import io.redeq.spring.internal.journal.JournalModelSystem.FinalRow;

/**
 * What {@link JournalModelIntegrationTests} knows of each job, and the checks of what the
 * runs and the journal show against it once every job ended.
 *
 * <p>
 * Each schedule of an id is an <em>incarnation</em>, told apart by the nonce in its
 * payload. The model records how its schedule ended ({@link Fate}), the cancels and
 * replaces that hit it, and the fault windows of the run; the checks then accept a second
 * run of a job only where a window explains it as docs/journal.md says, and count each
 * such excuse, so that a lenient run shows.
 */
final class JournalModel {

	/** How a schedule reached Redis. */
	enum Path {

		/** Outside a transaction: straight to Redis. */
		DIRECT,

		/** In a committed transaction, sent after the commit. */
		TX,

		/** In a committed transaction whose process "died" before the send: the relay. */
		TX_DIED

	}

	/** How a schedule, cancel or reschedule ended for the caller. */
	enum Fate {

		/** Accepted: Redis has it, or the outbox holds it committed. */
		COMMITTED,

		/** Its transaction rolled back (or never began): it must never run. */
		ROLLED_BACK,

		/** Redis refused it for sure (out of memory, or a running job under its id). */
		REFUSED,

		/** The caller cannot know (an error after the call may have reached Redis). */
		MAYBE

	}

	private final long t0 = System.nanoTime();

	private final Map<String, List<Incarnation>> incarnations = new LinkedHashMap<>();

	/** Ids whose history holds a schedule with an unknown outcome: weaker checks. */
	private final Map<String, String> tainted = new TreeMap<>();

	final List<Window> losses = new ArrayList<>();

	final List<Window> refusals = new ArrayList<>();

	final List<Window> outages = new ArrayList<>();

	private final List<String> trace = new ArrayList<>();

	private final List<String> violations = new ArrayList<>();

	private final Map<String, Integer> excused = new TreeMap<>();

	private final Map<String, Integer> operations = new TreeMap<>();

	Incarnation schedule(String id, Payload payload, int maxAttempts, Path path, int op) {
		Incarnation incarnation = new Incarnation(id, payload, maxAttempts, path, op);
		this.incarnations.computeIfAbsent(id, (key) -> new ArrayList<>()).add(incarnation);
		return incarnation;
	}

	/**
	 * The incarnation Redis holds (or will hold) under an id as far as the model knows:
	 * the latest one that was not rolled back or refused.
	 */
	@Nullable Incarnation current(String id) {
		List<Incarnation> all = this.incarnations.getOrDefault(id, List.of());
		for (int i = all.size() - 1; i >= 0; i--) {
			Fate fate = all.get(i).fate;
			if (fate == Fate.COMMITTED || fate == Fate.MAYBE) {
				return all.get(i);
			}
		}
		return null;
	}

	/** A new incarnation took the place of the ones before it at {@code at}. */
	void replaced(Incarnation by, long at) {
		for (Incarnation earlier : this.incarnations.get(by.id)) {
			if (earlier != by && earlier.replacedAt == null && earlier.fate != Fate.ROLLED_BACK) {
				earlier.replacedAt = at;
			}
		}
	}

	/**
	 * A schedule the relay may send later took the place of the ones before it in the
	 * outbox; until it is sent, the one Redis holds may still run, or not.
	 */
	void mayHaveReplaced(Incarnation by) {
		for (Incarnation earlier : this.incarnations.get(by.id)) {
			if (earlier != by) {
				earlier.mayBeReplaced = true;
			}
		}
	}

	void taint(String id, String why) {
		this.tainted.putIfAbsent(id, why);
	}

	void count(String operation) {
		this.operations.merge(operation, 1, Integer::sum);
	}

	Map<String, Integer> operations() {
		return this.operations;
	}

	void note(int op, String what) {
		this.trace.add(String.format("%7.3f s (%d) op %d: %s", seconds(System.nanoTime()), System.currentTimeMillis(),
				op, what));
	}

	void violation(String what) {
		this.violations.add(what);
	}

	List<String> violations() {
		return this.violations;
	}

	Map<String, Integer> excused() {
		return this.excused;
	}

	List<String> trace() {
		return this.trace;
	}

	double seconds(long nanos) {
		return (nanos - this.t0) / 1e9;
	}

	/**
	 * The checks once every job ended: the runs of each incarnation against its fate, the
	 * cancels and replaces that hit it and the fault windows; the journal's row of each
	 * job against the incarnation Redis ended with and how it ended.
	 * @param runs what the handlers recorded
	 * @param rows the journal's rows of this run's jobs, by id
	 * @param redis what Redis holds of each id at the end (empty when it holds nothing)
	 */
	void check(JournalModelRecorder runs, Map<String, FinalRow> rows, Map<String, @Nullable JobInfo> redis) {
		for (Map.Entry<String, List<Incarnation>> entry : this.incarnations.entrySet()) {
			String id = entry.getKey();
			boolean weak = this.tainted.containsKey(id);
			for (Incarnation incarnation : entry.getValue()) {
				checkRuns(incarnation, runs.runs(JournalModelSystem.TOPIC, id, incarnation.payload.nonce()), weak);
			}
			checkRow(id, entry.getValue(), rows.get(id), redis.get(id), runs, weak);
		}
	}

	private void checkRuns(Incarnation incarnation, List<Run> runs, boolean weak) {
		String job = incarnation.toString();
		if (incarnation.fate == Fate.ROLLED_BACK || incarnation.fate == Fate.REFUSED) {
			if (!runs.isEmpty()) {
				violation(job + " was " + incarnation.fate + " but ran: " + describe(runs));
			}
			return;
		}
		Run firstSuccess = null;
		Run previous = null;
		for (Run run : runs) {
			if (firstSuccess != null && !excuse(incarnation, firstSuccess, run, "ran again after it completed")) {
				violation(job + " ran again after it completed: " + describe(runs));
				break;
			}
			if (previous != null && run.attempt() <= previous.attempt()
					&& !excuse(incarnation, previous, run, "an attempt ran twice")) {
				violation(job + " ran attempt " + run.attempt() + " again: " + describe(runs));
				break;
			}
			if (run.succeeded() && firstSuccess == null) {
				firstSuccess = run;
			}
			previous = run;
		}
		if (incarnation.maxAttempts == 1 && runs.size() > 1
				&& !excuse(incarnation, runs.get(0), runs.get(1), "a maxAttempts(1) job ran twice")) {
			violation(job + " has maxAttempts(1) and ran " + runs.size() + " times: " + describe(runs));
		}
		if (incarnation.replacedAt != null) {
			for (Run run : runs) {
				if (run.start() > incarnation.replacedAt) {
					violation(job + " ran after a REPLACE took its place at " + seconds(incarnation.replacedAt) + " s: "
							+ describe(runs));
				}
			}
		}
		if (incarnation.cancelledAt != null) {
			for (Run run : runs) {
				if (run.start() > incarnation.cancelledAt) {
					violation(job + " ran after its cancel took effect at " + seconds(incarnation.cancelledAt) + " s: "
							+ describe(runs));
				}
			}
		}
		if (weak || incarnation.fate != Fate.COMMITTED || incarnation.replacedAt != null || incarnation.mayBeReplaced
				|| incarnation.cancelTouched()) {
			return;
		}
		if (!ranToItsEnd(incarnation, runs)) {
			violation(job + " was committed and never ran to its end: " + describe(runs));
		}
	}

	private boolean ranToItsEnd(Incarnation incarnation, List<Run> runs) {
		for (Run run : runs) {
			if (run.succeeded() || run.attempt() >= incarnation.maxAttempts) {
				return true;
			}
		}
		// A run a loss hit may have used the last attempt without its end being seen: the
		// recovery then sends it with all attempts used, and it goes DEAD unrun.
		return !runs.isEmpty() && runs.stream().anyMatch((run) -> inLoss(run) != null);
	}

	private void checkRow(String id, List<Incarnation> history, @Nullable FinalRow row, @Nullable JobInfo inRedis,
			JournalModelRecorder recorder, boolean weak) {
		if (inRedis != null && inRedis.state() != JobState.DEAD) {
			violation(id + " is still " + inRedis.state() + " in Redis after the run");
		}
		Incarnation last = null;
		for (Incarnation incarnation : history) {
			if (incarnation.fate == Fate.COMMITTED || incarnation.fate == Fate.MAYBE) {
				last = incarnation;
			}
		}
		if (row == null) {
			if (last != null && !weak) {
				violation(id + " has no journal row; its last job was " + last);
			}
			return;
		}
		if (row.pending()) {
			violation(id + "'s journal row is left pending: " + row);
			return;
		}
		String nonce = Payload.nonceOfRow(row.payload());
		Incarnation rowJob = history.stream()
			.filter((incarnation) -> incarnation.payload.nonce().equals(nonce))
			.findFirst()
			.orElse(null);
		if (rowJob == null) {
			violation(id + "'s journal row holds a payload no schedule of the run wrote: " + row);
			return;
		}
		if (rowJob.fate == Fate.ROLLED_BACK || rowJob.fate == Fate.REFUSED) {
			violation(id + "'s journal row holds " + rowJob + ", whose schedule was " + rowJob.fate + ": " + row);
		}
		if (!weak && last != null && rowJob != last) {
			violation(id + "'s journal row holds " + rowJob + " but the last job scheduled under the id is " + last
					+ ": " + row);
		}
		if (weak) {
			// Which job the row's steps came from is not known.
			return;
		}
		List<Run> runs = recorder.runs(JournalModelSystem.TOPIC, id, nonce);
		boolean succeeded = runs.stream().anyMatch(Run::succeeded);
		boolean lossHit = runs.stream().anyMatch((run) -> inLoss(run) != null);
		boolean deadInRedis = inRedis != null && inRedis.state() == JobState.DEAD;
		switch (row.state()) {
			case COMPLETED -> {
				if (!succeeded) {
					violation(id + "'s journal row is COMPLETED but no run of " + rowJob + " returned: "
							+ describe(runs));
				}
				if (deadInRedis && !lossHit) {
					violation(id + "'s journal row is COMPLETED but Redis holds it DEAD: " + describe(runs));
				}
			}
			case DEAD -> {
				boolean lastAttemptFailed = runs.stream()
					.anyMatch((run) -> !run.succeeded() && run.attempt() >= rowJob.maxAttempts);
				if (succeeded && !lossHit) {
					violation(id + "'s journal row is DEAD but " + rowJob + " completed: " + describe(runs));
				}
				else if (!lastAttemptFailed && !lossHit) {
					violation(id + "'s journal row is DEAD but " + rowJob + " did not fail its last attempt: "
							+ describe(runs));
				}
			}
			case CANCELLED -> {
				if (!rowJob.cancelTouched() && !weak) {
					violation(id + "'s journal row is CANCELLED but " + rowJob + " was never cancelled: " + row);
				}
				for (Run run : runs) {
					if (row.finishedAt() != null && run.startMillis() > row.finishedAt()) {
						violation(
								id + " ran after its row was CANCELLED at " + row.finishedAt() + ": " + describe(runs));
					}
				}
				if (succeeded && runs.get(runs.size() - 1).succeeded()) {
					violation(
							id + "'s journal row is CANCELLED but " + rowJob + " ran to completion: " + describe(runs));
				}
			}
			default -> violation(id + "'s journal row ended " + row.state() + ": " + row);
		}
		if (deadInRedis && row.state() == JournalState.CANCELLED) {
			violation(id + " is DEAD in Redis but its journal row is " + row);
		}
	}

	/**
	 * Whether a fault explains that {@code later} ran after {@code earlier} (a completed
	 * run, or an attempt's run), as docs/journal.md states what can run twice:
	 * <ul>
	 * <li>a loss of Redis's data while {@code earlier} ran or after it ended, before the
	 * recovery finished: its outcome may still have been in an instance's writer queue
	 * (the writers were flushed just before the loss; a second of slack covers the ack
	 * and the listener between the handler's return and its event), so its row read
	 * pending and it was sent again, or Redis lost it while it ran;</li>
	 * <li>Redis refusing writes when {@code earlier} ended: its acknowledgement was
	 * refused and its lease expired;</li>
	 * <li>an outbox job whose commit fell in a database outage (or a grace period before
	 * it), run again as attempt 1: the writer could not mark its row sent, so the relay
	 * sent it again (the outbox relay's documented limit).</li>
	 * </ul>
	 */
	private boolean excuse(Incarnation incarnation, Run earlier, Run later, String what) {
		Window loss = inLoss(earlier);
		if (loss != null && later.start() > loss.from) {
			return excused(what + " after " + loss);
		}
		for (Window refusal : this.refusals) {
			long slack = TimeUnit.MILLISECONDS.toNanos(JournalModelSystem.JOB_TIMEOUT.toMillis() + 1000);
			if (earlier.end() >= refusal.from && earlier.end() <= refusal.to + slack) {
				return excused(what + " after " + refusal);
			}
		}
		if (incarnation.path != Path.DIRECT && later.attempt() == 1 && incarnation.committedAt != null) {
			for (Window outage : this.outages) {
				long grace = TimeUnit.MILLISECONDS.toNanos(JournalModelSystem.GRACE.toMillis());
				if (incarnation.committedAt >= outage.from - grace && incarnation.committedAt <= outage.to) {
					return excused(what + " (relayed again) after " + outage);
				}
			}
		}
		return false;
	}

	private @Nullable Window inLoss(Run run) {
		long slack = TimeUnit.SECONDS.toNanos(1);
		for (Window loss : this.losses) {
			if (run.end() >= loss.from - slack && run.start() <= loss.to) {
				return loss;
			}
		}
		return null;
	}

	private boolean excused(String why) {
		this.excused.merge(why.replaceAll(" at [0-9.]+ s.*", "").replaceAll(" \\[.*", ""), 1, Integer::sum);
		return true;
	}

	String describe(List<Run> runs) {
		if (runs.isEmpty()) {
			return "no run";
		}
		List<String> parts = new ArrayList<>();
		for (Run run : runs) {
			parts.add(String.format("attempt %d on instance %d %.3f-%.3f s %s", run.attempt(), run.instance(),
					seconds(run.start()), seconds(run.end()), run.succeeded() ? "returned" : "threw"));
		}
		return String.join("; ", parts);
	}

	Map<String, String> tainted() {
		return this.tainted;
	}

	Window window(List<Window> kind, String what) {
		Window window = new Window(what, System.nanoTime());
		kind.add(window);
		return window;
	}

	/** A fault's time span ({@code System.nanoTime}). */
	final class Window {

		final String what;

		final long from;

		long to;

		Window(String what, long from) {
			this.what = what;
			this.from = from;
			this.to = from;
		}

		@Override
		public String toString() {
			return String.format("%s [%.3f-%.3f s]", this.what, seconds(this.from), seconds(this.to));
		}

	}

	/** One schedule of an id, and what happened to it. */
	final class Incarnation {

		final String id;

		final Payload payload;

		final int maxAttempts;

		final Path path;

		final int op;

		Fate fate = Fate.MAYBE;

		/** When its transaction committed, for an outbox job. */
		@Nullable Long committedAt;

		/** When a REPLACE by a later schedule returned. */
		@Nullable Long replacedAt;

		/** When a cancel that took effect for sure returned; no run may start after. */
		@Nullable Long cancelledAt;

		/** A later schedule the relay sends may have replaced it, or not. */
		boolean mayBeReplaced;

		/** A committed cancel whose effect is not certain (applied after the commit). */
		boolean cancelCommitted;

		Incarnation(String id, Payload payload, int maxAttempts, Path path, int op) {
			this.id = id;
			this.payload = payload;
			this.maxAttempts = maxAttempts;
			this.path = path;
			this.op = op;
		}

		boolean cancelTouched() {
			return this.cancelledAt != null || this.cancelCommitted;
		}

		@Override
		public String toString() {
			return this.id + "/" + this.payload.text() + " (op " + this.op + ", " + this.path + ", " + this.fate
					+ ", maxAttempts " + this.maxAttempts + ")";
		}

	}

}
