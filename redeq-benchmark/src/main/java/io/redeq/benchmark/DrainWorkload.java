package io.redeq.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * W2, drain throughput: jobs all due within one second, loaded in batches before the
 * first is due; consumers with {@code --consumers} handler threads and a no-op handler;
 * time from the first due time to the last completion, both on the Redis clock. W6 runs
 * it again at 1M jobs.
 */
final class DrainWorkload {

	static final String RATE_ROW = "W2 drain, jobs/s (higher is better)";

	static final String COMPLETED_ROW = "W2 completed";

	static final String LOST_ROW = "W2 missing / dup";

	/**
	 * Longest W2 waits for its jobs after the first is due, at 100k jobs or fewer; W6's
	 * 1M get a second more per 5,000 jobs beyond 100k (5 minutes in all).
	 */
	static final Duration DRAIN_LIMIT = Duration.ofSeconds(120);

	/** Jobs/s W2 allows for loading when W1 did not run before it. */
	private static final int DEFAULT_LOAD_RATE = 10_000;

	private static final int MIN_LOAD_RATE = 2_000;

	private static final int MAX_LOAD_RATE = 50_000;

	private final Harness harness;

	DrainWorkload(Harness harness) {
		this.harness = harness;
	}

	/** How long {@code n} jobs may take to drain after the first is due. */
	static Duration drainLimit(int n) {
		return DRAIN_LIMIT.plusMillis(Math.max(0, n - 100_000) / 5);
	}

	private int loadRate(Contender contender) {
		Double batch = this.harness.table.value(ScheduleWorkload.BATCH_ROW, contender.name());
		if (batch == null || batch <= 0) {
			return DEFAULT_LOAD_RATE;
		}
		return (int) Math.max(MIN_LOAD_RATE, Math.min(MAX_LOAD_RATE, batch / 2));
	}

	boolean run(Contender contender) throws InterruptedException {
		int n = this.harness.options.drainJobs;
		Drain drain = drain(contender, n, "W2", "");
		String name = contender.name();
		this.harness.table.put(RATE_ROW, name, drain.jobsPerSecond(), "%,.0f", drain.jobsPerSecond());
		this.harness.table.count(COMPLETED_ROW, name, drain.completed(), drain.completed() + " of " + n);
		this.harness.table.count(LOST_ROW, name, drain.missing() + drain.dup(), drain.missing() + " / " + drain.dup());
		return drain.missing() == 0 && drain.dup() == 0;
	}

	/**
	 * Drains {@code n} jobs on an empty Redis and prints a RESULT line starting
	 * {@code workload=<label>}, ending with {@code beside}.
	 */
	Drain drain(Contender contender, int n, String label, String beside) throws InterruptedException {
		Options options = this.harness.options;
		String namespace = this.harness.fresh("w2");
		RedisClock clock = this.harness.clock();
		Tracker tracker = new Tracker(n, null);
		try (QueueUnderTest queue = contender.open(namespace, tracker)) {
			queue.consume(options.consumers);
			// Load everything before the first job is due: allow for loading at half the
			// rate this system's W1 batches had in this run (a machine's speed drifts);
			// the
			// line says if loading ran late all the same.
			long firstDue = clock.nowMillis() + 1000 + n * 1000L / loadRate(contender);
			for (int from = 0; from < n; from += options.batch) {
				int size = Math.min(options.batch, n - from);
				List<BenchJob> jobs = new ArrayList<>(size);
				for (int i = from; i < from + size; i++) {
					jobs.add(BenchJob.of(i, this.harness.payload, firstDue + i % 1000));
				}
				queue.scheduleBatch(jobs);
			}
			long loadedAt = clock.nowMillis();
			Snapshot before = this.harness.snapshot();
			this.harness.startProfile();
			Duration limit = drainLimit(n).plusMillis(Math.max(0, firstDue - loadedAt));
			Harness.awaitCompleted(tracker, n, limit);
			Thread.sleep(200); // a late duplicate would show up here
			Snapshot after = this.harness.snapshot();
			int completed = tracker.completed();
			double seconds = (completed > 0)
					? (clock.redisMicrosAt(tracker.lastCompletedNanos()) - firstDue * 1000) / 1e6 : Double.NaN;
			double rate = (completed > 0) ? completed / seconds : 0;
			int missing = tracker.missing(n);
			int dup = tracker.duplicates();
			this.harness.line(
					"RESULT workload=%s system=%s jobs=%d consumers=%d jobs_per_s=%.0f us_per_job=%.2f drain_s=%.3f completed=%d redis_cpu_us_per_job=%.1f client_cpu_us_per_job=%.1f commands_per_job=%.2f loaded_before_due=%s left_pending=%d missing=%d dup=%d%s",
					label, contender.name(), n, options.consumers, rate, 1e6 / rate, seconds, completed,
					after.redisCpuPerJob(before, completed), after.clientCpuPerJob(before, completed),
					after.commandsPerJob(before, completed),
					(loadedAt < firstDue) ? "yes" : "no(" + (loadedAt - firstDue) + "ms_late)", queue.pending(),
					missing, dup, beside);
			this.harness.details(label, contender.name(), before, after, completed);
			this.harness.stopProfile(label, contender.name());
			return new Drain(n, completed, missing, dup, rate);
		}
	}

	/** The outcome, for W6 to compare with. */
	record Drain(int jobs, int completed, int missing, int dup, double jobsPerSecond) {

		boolean collapsed() {
			return this.completed < this.jobs;
		}

	}

}
