package io.redeq.spring.internal.journal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.redeq.Delivery;

/**
 * Every handler run of {@link JournalModelIntegrationTests}, keyed by topic and id: which
 * incarnation of the job ran (the nonce in its payload), on which instance, its attempt,
 * when it started and ended ({@code System.nanoTime}, and the wall clock for comparing
 * with the journal's times) and whether it returned or threw. Thread-safe: the handlers
 * of three instances write to it at once.
 *
 * <p>
 * The payload tells the handler what to do ({@link Payload}): return, throw on the first
 * attempt only, or always throw, after working a few milliseconds.
 */
final class JournalModelRecorder {

	private final Map<String, List<Run>> runs = new ConcurrentHashMap<>();

	private final AtomicInteger inFlight = new AtomicInteger();

	/** The model's handler: records the run and does what the payload says. */
	void run(int instance, Delivery delivery, String payload) {
		Payload what = Payload.parse(payload);
		long start = System.nanoTime();
		long startMillis = System.currentTimeMillis();
		this.inFlight.incrementAndGet();
		boolean succeeded = false;
		try {
			// The job's own work: part of the workload, not a wait for a condition.
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(what.workMillis()));
			succeeded = what.behavior() == Behavior.OK || (what.behavior() == Behavior.FLAKY && delivery.attempt() > 1);
			if (!succeeded) {
				throw new IllegalStateException("model job " + delivery.id() + " fails attempt " + delivery.attempt());
			}
		}
		finally {
			this.runs.computeIfAbsent(key(delivery.topic(), delivery.id()), (k) -> new CopyOnWriteArrayList<>())
				.add(new Run(what.nonce(), instance, delivery.attempt(), start, System.nanoTime(), startMillis,
						succeeded));
			this.inFlight.decrementAndGet();
		}
	}

	/** The runs of one job, in the order they started. */
	List<Run> runs(String topic, String id) {
		List<Run> all = new ArrayList<>(this.runs.getOrDefault(key(topic, id), List.of()));
		all.sort(Comparator.comparingLong(Run::start));
		return all;
	}

	/** The runs of one incarnation of a job, in the order they started. */
	List<Run> runs(String topic, String id, String nonce) {
		return runs(topic, id).stream().filter((run) -> run.nonce().equals(nonce)).toList();
	}

	int inFlight() {
		return this.inFlight.get();
	}

	private static String key(String topic, String id) {
		return topic + "/" + id;
	}

	/** What a job's handler does. */
	enum Behavior {

		/** Returns. */
		OK,

		/** Throws on the first attempt, returns on the next. */
		FLAKY,

		/** Always throws. */
		FAIL

	}

	/** A job's payload: its incarnation's nonce, its behaviour and how long it works. */
	record Payload(String nonce, Behavior behavior, int workMillis) {

		static Payload parse(String payload) {
			String[] parts = payload.split(":");
			return new Payload(parts[0], Behavior.valueOf(parts[1]), Integer.parseInt(parts[2]));
		}

		/** The nonce in a journal row's payload column (the payload as JSON). */
		static String nonceOfRow(String json) {
			String unquoted = (json.startsWith("\"")) ? json.substring(1, json.length() - 1) : json;
			return parse(unquoted).nonce();
		}

		String text() {
			return this.nonce + ":" + this.behavior + ":" + this.workMillis;
		}

	}

	/**
	 * One handler run; {@code start} and {@code end} from {@code System.nanoTime},
	 * {@code startMillis} from the wall clock.
	 */
	record Run(String nonce, int instance, int attempt, long start, long end, long startMillis, boolean succeeded) {

	}

}
