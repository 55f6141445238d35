package io.redeq.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * W1, schedule throughput: one thread schedules jobs with explicit ids, due in 1-2 h, one
 * call per job ({@code mode=single}); for a system with an asynchronous schedule, one
 * call per job with up to {@code --in-flight} calls in flight ({@code mode=async}); then
 * in batches ({@code mode=batch}); each mode on an empty Redis. W6 runs the batch mode
 * again at 1M jobs.
 */
final class ScheduleWorkload {

	static final String SINGLE_ROW = "W1 single schedule, jobs/s (higher is better)";

	static final String BATCH_ROW = "W1 batches of 1000, jobs/s (higher is better)";

	static final String ASYNC_ROW = "W1 async schedule, one thread, jobs/s (higher is better)";

	static final String CONCURRENT_ROW = "W1c single schedule from %d threads, jobs/s (higher is better)";

	private static final int BATCH_WARM_UP_JOBS = 500_000;

	static final Duration BATCH_WARM_UP_TIME = Duration.ofSeconds(10);

	private static final long HOUR_MS = 3_600_000L;

	/** Longest one mode may take; the line says how many jobs it got through. */
	private static final Duration TIME_LIMIT = Duration.ofMinutes(3);

	/**
	 * Single calls each system makes, unmeasured, before its W1 figures: enough for the
	 * JIT to finish compiling its client's call path. With fewer, redeq's single calls
	 * were measured while C2 still compiled (client CPU per job well above what the same
	 * calls cost once warm, on a machine where the compiler threads take a core), and the
	 * peers after it ran on Lettuce code redeq had already warmed.
	 */
	private static final int WARM_UP_JOBS = 30_000;

	private final Harness harness;

	ScheduleWorkload(Harness harness) {
		this.harness = harness;
	}

	boolean run(Contender contender) {
		int n = this.harness.options.scheduleJobs;
		warmUp(contender, Math.min(WARM_UP_JOBS, n));
		boolean single = single(contender, n);
		if (contender.name().equals(RedeqContender.NAME)) {
			new ScriptFloor(this.harness).run(n);
		}
		single &= async(contender, n);
		warmUpBatches(contender, n);
		double batch = batch(contender, n, "W1 mode=batch", "");
		this.harness.table.put(BATCH_ROW, contender.name(), batch, "%,.0f", batch);
		if (contender.name().equals(RedeqContender.NAME)) {
			new BatchFloor(this.harness).run(n);
		}
		return single && batch > 0;
	}

	/**
	 * W1c: {@code --producers} threads each call {@code schedule} one job at a time, the
	 * way request threads of a web application do; ids come from one counter. First the
	 * same on keys of its own, unmeasured, so the JIT has compiled the concurrent path.
	 */
	boolean concurrent(Contender contender) throws InterruptedException {
		int n = this.harness.options.scheduleJobs;
		int threads = this.harness.options.producers(Options.W1C_PRODUCERS);
		try (QueueUnderTest queue = contender.open(this.harness.fresh("w1c-warm"), null)) {
			fromThreads(queue, Math.min(WARM_UP_JOBS, n), threads);
		}
		try (QueueUnderTest queue = contender.open(this.harness.fresh("w1c"), null)) {
			Snapshot before = this.harness.snapshot();
			Concurrent run = fromThreads(queue, n, threads);
			Snapshot after = this.harness.snapshot();
			int done = run.done();
			double rate = done / after.secondsSince(before);
			long stored = queue.pending();
			this.harness.line(
					"RESULT workload=W1c mode=single system=%s jobs=%d threads=%d jobs_per_s=%.0f seconds=%.2f redis_cpu_us_per_job=%.1f client_cpu_us_per_job=%.1f commands_per_job=%.2f failed=%d missing=%d dup=%d",
					contender.name(), done, threads, rate, after.secondsSince(before),
					after.redisCpuPerJob(before, done), after.clientCpuPerJob(before, done),
					after.commandsPerJob(before, done), run.failed(), Math.max(0, done - stored),
					Math.max(0, stored - done));
			this.harness.details("W1c", contender.name() + " mode=single", before, after, done);
			this.harness.table.put(String.format(Locale.ROOT, CONCURRENT_ROW, threads), contender.name(), rate, "%,.0f",
					rate);
			if (contender.name().equals(RedeqContender.NAME)) {
				new ScriptFloor(this.harness).runConcurrent(n, threads);
			}
			return stored == done && run.failed() == 0;
		}
	}

	/**
	 * Schedules jobs 0..n-1 from {@code threads} threads, one call per job, each thread
	 * taking the next index from a shared counter; bounded by {@link #TIME_LIMIT}.
	 */
	private Concurrent fromThreads(QueueUnderTest queue, int n, int threads) throws InterruptedException {
		long base = System.currentTimeMillis() + HOUR_MS;
		long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
		AtomicInteger next = new AtomicInteger();
		AtomicInteger done = new AtomicInteger();
		AtomicInteger failed = new AtomicInteger();
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> started = new ArrayList<>(threads);
		for (int t = 0; t < threads; t++) {
			Thread thread = new Thread(() -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				int index;
				while ((index = next.getAndIncrement()) < n && System.nanoTime() < deadline) {
					try {
						queue.schedule(BenchJob.of(index, this.harness.payload, base + random.nextLong(HOUR_MS)));
						done.incrementAndGet();
					}
					catch (RuntimeException ex) {
						if (failed.getAndIncrement() == 0) {
							ex.printStackTrace();
						}
					}
				}
			}, "bench-w1c-" + t);
			started.add(thread);
			thread.start();
		}
		start.countDown();
		for (Thread thread : started) {
			thread.join(TIME_LIMIT.toMillis() + 30_000);
		}
		return new Concurrent(done.get(), failed.get());
	}

	/** Loads code and scripts and warms the JIT, on keys of its own, unmeasured. */
	private void warmUp(Contender contender, int jobs) {
		try (QueueUnderTest queue = contender.open(this.harness.fresh("w1-warm"), null)) {
			long due = System.currentTimeMillis() + HOUR_MS;
			for (int i = 0; i < jobs; i++) {
				queue.schedule(BenchJob.of(i, this.harness.payload, due));
			}
			for (int from = 0; from < jobs; from += this.harness.options.batch) {
				queue.scheduleBatch(jobs(from, Math.min(this.harness.options.batch, jobs - from)));
			}
		}
	}

	/**
	 * Batches each system schedules, unmeasured, right before its W1 batches: a batch
	 * call runs its per-job code a thousand times but its per-call code once per bucket,
	 * and the warm-up above left redeq's batch path half compiled (client CPU per job in
	 * the measured batches well above its cost once a long run had warmed it). Five times
	 * the measured jobs, at most {@value #BATCH_WARM_UP_JOBS} or
	 * {@link #BATCH_WARM_UP_TIME}, whichever comes first, on keys of their own.
	 */
	private void warmUpBatches(Contender contender, int n) {
		try (QueueUnderTest queue = contender.open(this.harness.fresh("w1-batch-warm"), null)) {
			int size = this.harness.options.batch;
			int jobs = batchWarmUpJobs(n);
			long deadline = System.nanoTime() + BATCH_WARM_UP_TIME.toNanos();
			for (int from = 0; from < jobs && System.nanoTime() < deadline; from += size) {
				queue.scheduleBatch(jobs(from, Math.min(size, jobs - from)));
			}
		}
	}

	/** Jobs of the batch warm-up before {@code n} measured ones. */
	static int batchWarmUpJobs(int n) {
		return (int) Math.min(BATCH_WARM_UP_JOBS, 5L * n);
	}

	private boolean single(Contender contender, int n) {
		try (QueueUnderTest queue = contender.open(this.harness.fresh("w1-single"), null)) {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			long base = System.currentTimeMillis() + HOUR_MS;
			Snapshot before = this.harness.snapshot();
			long deadline = before.nanos() + TIME_LIMIT.toNanos();
			int done = 0;
			while (done < n && ((done & 1023) != 0 || System.nanoTime() < deadline)) {
				queue.schedule(BenchJob.of(done, this.harness.payload, base + random.nextLong(HOUR_MS)));
				done++;
			}
			Snapshot after = this.harness.snapshot();
			double rate = done / after.secondsSince(before);
			long stored = queue.pending();
			this.harness.line(
					"RESULT workload=W1 mode=single system=%s jobs=%d threads=1 jobs_per_s=%.0f seconds=%.2f redis_cpu_us_per_job=%.1f client_cpu_us_per_job=%.1f missing=%d dup=%d",
					contender.name(), done, rate, after.secondsSince(before), after.redisCpuPerJob(before, done),
					after.clientCpuPerJob(before, done), Math.max(0, done - stored), Math.max(0, stored - done));
			this.harness.details("W1", contender.name() + " mode=single", before, after, done);
			this.harness.table.put(SINGLE_ROW, contender.name(), rate, "%,.0f", rate);
			return stored == done;
		}
	}

	/**
	 * One thread, one call per job, each returning at once: a semaphore keeps at most
	 * {@code --in-flight} schedules waiting for Redis. Skipped (true) for a system
	 * without an asynchronous schedule.
	 */
	private boolean async(Contender contender, int n) {
		int inFlight = this.harness.options.inFlight;
		try (QueueUnderTest queue = contender.open(this.harness.fresh("w1-async"), null)) {
			if (!queue.schedulesAsync()) {
				return true;
			}
			ThreadLocalRandom random = ThreadLocalRandom.current();
			long base = System.currentTimeMillis() + HOUR_MS;
			Semaphore permits = new Semaphore(inFlight);
			AtomicInteger failed = new AtomicInteger();
			Snapshot before = this.harness.snapshot();
			long deadline = before.nanos() + TIME_LIMIT.toNanos();
			int done = 0;
			while (done < n && ((done & 1023) != 0 || System.nanoTime() < deadline)) {
				permits.acquireUninterruptibly();
				queue.scheduleAsync(BenchJob.of(done, this.harness.payload, base + random.nextLong(HOUR_MS)))
					.whenComplete((id, ex) -> {
						if (ex != null) {
							failed.incrementAndGet();
						}
						permits.release();
					});
				done++;
			}
			permits.acquireUninterruptibly(inFlight); // the last ones answered
			Snapshot after = this.harness.snapshot();
			double rate = done / after.secondsSince(before);
			long stored = queue.pending();
			this.harness.line(
					"RESULT workload=W1 mode=async system=%s jobs=%d threads=1 in_flight=%d jobs_per_s=%.0f seconds=%.2f redis_cpu_us_per_job=%.1f client_cpu_us_per_job=%.1f failed=%d missing=%d dup=%d",
					contender.name(), done, inFlight, rate, after.secondsSince(before),
					after.redisCpuPerJob(before, done), after.clientCpuPerJob(before, done), failed.get(),
					Math.max(0, done - stored), Math.max(0, stored - done));
			this.harness.details("W1", contender.name() + " mode=async", before, after, done);
			this.harness.table.put(ASYNC_ROW, contender.name(), rate, "%,.0f", rate);
			return stored == done && failed.get() == 0;
		}
	}

	/**
	 * Schedules {@code n} jobs in batches on an empty Redis and prints a RESULT line
	 * starting {@code workload=<label>}, ending with {@code beside}; returns jobs/s, or 0
	 * if a job was lost or doubled.
	 */
	double batch(Contender contender, int n, String label, String beside) {
		try (QueueUnderTest queue = contender.open(this.harness.fresh("w1-batch"), null)) {
			int size = this.harness.options.batch;
			Snapshot before = this.harness.snapshot();
			long deadline = before.nanos() + TIME_LIMIT.toNanos();
			int done = 0;
			while (done < n && System.nanoTime() < deadline) {
				List<BenchJob> jobs = jobs(done, Math.min(size, n - done));
				queue.scheduleBatch(jobs);
				done += jobs.size();
			}
			Snapshot after = this.harness.snapshot();
			double rate = done / after.secondsSince(before);
			long stored = queue.pending();
			this.harness.line(
					"RESULT workload=%s system=%s jobs=%d threads=1 batch=%d how=%s jobs_per_s=%.0f us_per_job=%.2f seconds=%.2f redis_cpu_us_per_job=%.1f client_cpu_us_per_job=%.1f missing=%d dup=%d%s",
					label, contender.name(), done, size, contender.batchHow(), rate, 1e6 / rate,
					after.secondsSince(before), after.redisCpuPerJob(before, done), after.clientCpuPerJob(before, done),
					Math.max(0, done - stored), Math.max(0, stored - done), beside);
			this.harness.details(label.split(" ")[0], contender.name() + " mode=batch", before, after, done);
			return (stored == done) ? rate : 0;
		}
	}

	private List<BenchJob> jobs(int from, int size) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		long base = System.currentTimeMillis() + HOUR_MS;
		List<BenchJob> jobs = new ArrayList<>(size);
		for (int i = from; i < from + size; i++) {
			jobs.add(BenchJob.of(i, this.harness.payload, base + random.nextLong(HOUR_MS)));
		}
		return jobs;
	}

	private record Concurrent(int done, int failed) {
	}

}
