package io.redeq.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;

/**
 * W3 and W3b, lateness at a steady rate: producer threads together keep a rate for
 * {@code --seconds}, each job sent with one {@code schedule} call; consumers with
 * {@code --consumers} handler threads record handler start − due time. W3: 2,000 jobs/s
 * from two threads, each job due 1-3 s after it is sent. W3b, lateness at scale: 20,000
 * jobs/s from eight threads, each job due 0.1-0.5 s after it is sent, and the rate the
 * producers reached. Also Redis commands, Redis CPU and this JVM's CPU per job.
 */
final class LatenessWorkload {

	static final String P50_ROW = "W3 lateness p50, ms (lower is better)";

	static final String P99_ROW = "W3 lateness p99, ms (lower is better)";

	static final String P999_ROW = "W3 lateness p99.9, ms (lower is better)";

	static final String MAX_ROW = "W3 lateness max, ms (lower is better)";

	static final String COMMANDS_ROW = "W3 Redis commands per job (lower is better)";

	static final String REDIS_CPU_ROW = "W3 Redis CPU per job, µs (lower is better)";

	static final String CLIENT_CPU_ROW = "W3 client JVM CPU per job, µs (lower is better)";

	static final String B_PRODUCED_ROW = "W3b produced, jobs/s, target %,d from %d threads (higher is better)";

	static final String B_P50_ROW = "W3b lateness p50, ms (lower is better)";

	static final String B_P99_ROW = "W3b lateness p99, ms (lower is better)";

	static final String B_P999_ROW = "W3b lateness p99.9, ms (lower is better)";

	static final String B_MAX_ROW = "W3b lateness max, ms (lower is better)";

	static final String B_REDIS_CPU_ROW = "W3b Redis CPU per job, µs (lower is better)";

	private final Harness harness;

	LatenessWorkload(Harness harness) {
		this.harness = harness;
	}

	/**
	 * W3: two producer threads, one {@code schedule} call per job.
	 */
	boolean w3(Contender contender) throws InterruptedException {
		Options options = this.harness.options;
		return run(contender, new Shape("W3", options.rate, 2, options.delayMinMs, options.delayMaxMs));
	}

	/**
	 * W3b: {@code --producers} threads (eight by default), one {@code schedule} call per
	 * job, at {@code --rate-b}; the way request threads of a busy application schedule
	 * jobs due soon after.
	 */
	boolean w3b(Contender contender) throws InterruptedException {
		Options options = this.harness.options;
		return run(contender, new Shape("W3b", options.rateB, options.producers(Options.W3B_PRODUCERS),
				options.delayMinMsB, options.delayMaxMsB));
	}

	private boolean run(Contender contender, Shape shape) throws InterruptedException {
		Options options = this.harness.options;
		String name = shape.name();
		if (options.warmUpSeconds > 0) {
			rehearse(contender, shape);
		}
		int total = (int) Math.min(Integer.MAX_VALUE - 1, (long) shape.rate() * options.seconds);
		String namespace = this.harness.fresh(name.toLowerCase(Locale.ROOT));
		RedisClock clock = this.harness.clock();
		Tracker tracker = new Tracker(total, clock);
		try (QueueUnderTest queue = contender.open(namespace, tracker)) {
			queue.consume(options.consumers);
			Snapshot before = this.harness.snapshot();
			this.harness.startProfile();
			Producers sent = new Producers(queue, tracker, clock, total, shape, options.seconds);
			sent.run();
			double producedSeconds = sent.elapsedSeconds;
			int jobs = sent.sent.get();
			double produced = jobs / producedSeconds;
			Harness.awaitCompleted(tracker, jobs, drainLimit(shape, producedSeconds));
			Thread.sleep(200); // a late duplicate would show up here
			Snapshot after = this.harness.snapshot();
			RedisClock recheck = this.harness.clock();
			Histogram lateness = tracker.lateness();
			int completed = tracker.completed();
			int missing = tracker.missing(jobs);
			int dup = tracker.duplicates();
			double p50 = ms(lateness.getValueAtPercentile(50));
			double p99 = ms(lateness.getValueAtPercentile(99));
			double p999 = ms(lateness.getValueAtPercentile(99.9));
			double max = ms(lateness.getMaxValue());
			double commands = after.commandsPerJob(before, completed);
			double redisCpu = after.redisCpuPerJob(before, completed);
			double clientCpu = after.clientCpuPerJob(before, completed);
			this.harness.line(
					"RESULT workload=%s system=%s rate=%d seconds=%d warm_up_s=%d jobs=%d producers=%d calls=single delay_ms=%d-%d consumers=%d produced_per_s=%.0f p50_ms=%.2f p99_ms=%.2f p999_ms=%.2f max_ms=%.2f mean_ms=%.2f commands_per_job=%.2f redis_cpu_us_per_job=%.1f client_cpu_us_per_job=%.1f completed=%d early=%d clock_err_us=%d clock_drift_us=%d missing=%d dup=%d",
					name, contender.name(), shape.rate(), options.seconds, options.warmUpSeconds, jobs,
					shape.producers(), shape.delayMinMs(), shape.delayMaxMs(), options.consumers, produced, p50, p99,
					p999, max, lateness.getMean() / 1000.0, commands, redisCpu, clientCpu, completed, tracker.early(),
					clock.errorMicros(), clock.driftMicros(recheck), missing, dup);
			this.harness.details(name, contender.name(), before, after, completed);
			this.harness.stopProfile(name, contender.name());
			String system = contender.name();
			ResultTable table = this.harness.table;
			if (name.equals("W3")) {
				table.put(P50_ROW, system, p50, "%.2f", p50);
				table.put(P99_ROW, system, p99, "%.2f", p99);
				table.put(P999_ROW, system, p999, "%.2f", p999);
				table.put(MAX_ROW, system, max, "%.2f", max);
				table.put(COMMANDS_ROW, system, commands, "%.1f", commands);
				table.put(REDIS_CPU_ROW, system, redisCpu, "%.1f", redisCpu);
				table.put(CLIENT_CPU_ROW, system, clientCpu, "%.1f", clientCpu);
			}
			else {
				table.put(String.format(Locale.ROOT, B_PRODUCED_ROW, shape.rate(), shape.producers()), system, produced,
						"%,.0f", produced);
				table.put(B_P50_ROW, system, p50, "%.2f", p50);
				table.put(B_P99_ROW, system, p99, "%.2f", p99);
				table.put(B_P999_ROW, system, p999, "%.2f", p999);
				table.put(B_MAX_ROW, system, max, "%.2f", max);
				table.put(B_REDIS_CPU_ROW, system, redisCpu, "%.1f", redisCpu);
			}
			return sent.failure.get() == null && missing == 0 && dup == 0;
		}
	}

	/**
	 * The same workload for {@code --warm-up-seconds}, on keys of its own, unmeasured. On
	 * a machine with few cores the JIT compiles a system's consume path during its first
	 * seconds under load; a compiler thread holding a core then shows as lateness, Redis
	 * being descheduled mid-script and client CPU of the system measured first, while the
	 * systems after it run on Lettuce and Netty code it warmed. Measured cold, the same
	 * build's W3 p99 varies widely from run to run.
	 */
	private void rehearse(Contender contender, Shape shape) throws InterruptedException {
		Options options = this.harness.options;
		int total = (int) Math.min(Integer.MAX_VALUE - 1, (long) shape.rate() * options.warmUpSeconds);
		RedisClock clock = this.harness.clock();
		Tracker tracker = new Tracker(total, clock);
		try (QueueUnderTest queue = contender.open(this.harness.fresh(shape.name().toLowerCase(Locale.ROOT) + "-warm"),
				tracker)) {
			queue.consume(options.consumers);
			Producers sent = new Producers(queue, tracker, clock, total, shape, options.warmUpSeconds);
			sent.run();
			Harness.awaitCompleted(tracker, sent.sent.get(), drainLimit(shape, sent.elapsedSeconds));
		}
	}

	/**
	 * How long to wait for the last jobs once the producers stopped: their delay and 30
	 * s, plus as long again as the producers ran. A system whose consumers fall behind
	 * the rate (the peers' at W3b's 20,000 jobs/s fell seconds behind in a 10 s run) has
	 * a backlog that grows with the run; its jobs are late, which the lateness shows, and
	 * must not count as missing because the wait ended first.
	 */
	static Duration drainLimit(Shape shape, double producedSeconds) {
		return Duration.ofMillis(shape.delayMaxMs()).plusSeconds(30L + (long) Math.ceil(producedSeconds));
	}

	private static double ms(double micros) {
		return micros / 1000.0;
	}

	/**
	 * A lateness workload: its name, rate, producer threads and the range of delays its
	 * jobs are due after.
	 */
	record Shape(String name, int rate, int producers, int delayMinMs, int delayMaxMs) {
	}

	/**
	 * The producer threads: each keeps its share of the rate, sending what it owes one
	 * {@code schedule} call at a time and sleeping until the next job is owed; ids come
	 * from one counter, so together they send ids 0..total-1. A thread that falls behind
	 * sends back to back until it caught up, so the rate reached is what its calls allow.
	 */
	private final class Producers {

		private final QueueUnderTest queue;

		private final Tracker tracker;

		private final RedisClock clock;

		private final int total;

		private final Shape shape;

		private final int seconds;

		private final AtomicInteger nextId = new AtomicInteger();

		private final AtomicInteger sent = new AtomicInteger();

		private final AtomicReference<Throwable> failure = new AtomicReference<>();

		private double elapsedSeconds;

		Producers(QueueUnderTest queue, Tracker tracker, RedisClock clock, int total, Shape shape, int seconds) {
			this.queue = queue;
			this.tracker = tracker;
			this.clock = clock;
			this.total = total;
			this.shape = shape;
			this.seconds = seconds;
		}

		void run() throws InterruptedException {
			long start = System.nanoTime();
			long end = start + Duration.ofSeconds(this.seconds + 10).toNanos();
			List<Thread> started = new ArrayList<>();
			int threads = this.shape.producers();
			for (int t = 0; t < threads; t++) {
				int share = this.total / threads + ((t < this.total % threads) ? 1 : 0);
				Thread thread = new Thread(() -> produce(share, start, end), "bench-producer-" + t);
				started.add(thread);
				thread.start();
			}
			for (Thread thread : started) {
				thread.join(Math.max(1, (end - System.nanoTime()) / 1_000_000 + 5000));
			}
			this.elapsedSeconds = (System.nanoTime() - start) / 1e9;
			Throwable failure = this.failure.get();
			if (failure != null) {
				throw new IllegalStateException("A producer failed: " + failure, failure);
			}
		}

		private void produce(int share, long start, long end) {
			String payload = LatenessWorkload.this.harness.payload;
			double perThreadRate = this.shape.rate() / (double) this.shape.producers();
			int spread = this.shape.delayMaxMs() - this.shape.delayMinMs() + 1;
			ThreadLocalRandom random = ThreadLocalRandom.current();
			int mine = 0;
			try {
				while (mine < share && System.nanoTime() < end) {
					long owed = Math.min(share, (long) ((System.nanoTime() - start) * perThreadRate / 1e9) + 1);
					if (owed <= mine) {
						// Sleep until the next job is owed: polling would cost this JVM
						// CPU that the client CPU per job would count.
						long nextAt = start + (long) (mine * 1e9 / perThreadRate);
						LockSupport.parkNanos(Math.min(200_000_000L, Math.max(10_000, nextAt - System.nanoTime())));
						continue;
					}
					int id = this.nextId.getAndIncrement();
					long due = this.clock.nowMillis() + this.shape.delayMinMs() + random.nextInt(spread);
					this.tracker.due(id, due);
					this.queue.schedule(BenchJob.of(id, payload, due));
					mine++;
					this.sent.incrementAndGet();
				}
			}
			catch (RuntimeException ex) {
				this.failure.compareAndSet(null, ex);
			}
		}

	}

}
