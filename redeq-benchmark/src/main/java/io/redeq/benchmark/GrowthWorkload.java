package io.redeq.benchmark;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * W6, growth: W1 batches, W2 and W4 again at {@code --growth-jobs} (1M), each per job
 * beside the figure at the default size from earlier in the same run, with their ratio
 * ({@code growth} above 1: each job costs more in a bigger queue).
 */
final class GrowthWorkload {

	private static final String BATCH_ROW = "W6 W1 batches at %,d jobs, jobs/s (higher is better)";

	private static final String DRAIN_ROW = "W6 W2 drain at %,d jobs, jobs/s (higher is better)";

	private static final String MEMORY_ROW = "W6 W4 memory at %,d jobs, bytes per job (lower is better)";

	private final Harness harness;

	private final ScheduleWorkload schedule;

	private final DrainWorkload drain;

	private final MemoryWorkload memory;

	GrowthWorkload(Harness harness) {
		this.harness = harness;
		this.schedule = new ScheduleWorkload(harness);
		this.drain = new DrainWorkload(harness);
		this.memory = new MemoryWorkload(harness);
	}

	boolean run(Contender contender) throws InterruptedException {
		Options options = this.harness.options;
		ResultTable table = this.harness.table;
		String system = contender.name();
		int n = options.growthJobs;
		boolean ok = true;

		Double batchBase = table.value(ScheduleWorkload.BATCH_ROW, system);
		double batch = this.schedule.batch(contender, n, "W6 part=W1-batch",
				beside("us_per_job", options.scheduleJobs, perJobMicros(batchBase)));
		ok &= batch > 0;
		put(row(BATCH_ROW, n), system, batch, growth(perJobMicros(batch), perJobMicros(batchBase)),
				options.scheduleJobs);

		Double drainBase = table.value(DrainWorkload.RATE_ROW, system);
		Double completedBase = table.value(DrainWorkload.COMPLETED_ROW, system);
		String collapse = collapse(drainBase, completedBase, n);
		if (collapse != null) {
			// Draining again would only use up the time limit.
			this.harness.line("RESULT workload=W6 part=W2 system=%s jobs=%d skipped=\"%s\"", system, n, collapse);
			table.count(row(DRAIN_ROW, n), system, Double.NaN, "skipped: " + collapse);
		}
		else {
			DrainWorkload.Drain result = this.drain.drain(contender, n, "W6 part=W2",
					beside("us_per_job", options.drainJobs, perJobMicros(drainBase)));
			ok &= result.missing() == 0 && result.dup() == 0;
			put(row(DRAIN_ROW, n), system, result.jobsPerSecond(),
					growth(perJobMicros(result.jobsPerSecond()), perJobMicros(drainBase)), options.drainJobs);
		}

		Double memoryBase = table.value(MemoryWorkload.ROW, system);
		double bytes = this.memory.measure(contender, n, "W6 part=W4",
				beside("bytes_per_job", options.memoryJobs, memoryBase));
		ok &= bytes > 0;
		table.put(row(MEMORY_ROW, n), system, bytes, "%.0f (%s)", bytes,
				growthText(growth(bytes, memoryBase), options.memoryJobs));
		return ok;
	}

	/**
	 * Why W2 at {@code n} jobs cannot finish within its drain limit, judged from W2 at
	 * the default size: it did not finish there, or even at that rate (drains slow down
	 * as queues grow, never speed up) {@code n} jobs would need longer than the limit.
	 * Null if it can.
	 */
	private @Nullable String collapse(@Nullable Double rate, @Nullable Double completed, int n) {
		int base = this.harness.options.drainJobs;
		if (completed != null && completed < base) {
			return String.format(Locale.ROOT, "W2 completed %.0f of %d within the drain limit", completed, base);
		}
		long limit = DrainWorkload.drainLimit(n).toSeconds();
		if (rate != null && rate * limit < n) {
			return String.format(Locale.ROOT,
					"W2 drained %.0f jobs/s at %d jobs: %d jobs would need %.0f s, beyond the %d s drain limit", rate,
					base, n, n / rate, limit);
		}
		return null;
	}

	private static String row(String format, int jobs) {
		return String.format(Locale.ROOT, format, jobs);
	}

	private void put(String row, String system, double rate, @Nullable Double growth, int baseJobs) {
		this.harness.table.put(row, system, rate, "%,.0f (%s)", rate, growthText(growth, baseJobs));
	}

	private static String growthText(@Nullable Double growth, int baseJobs) {
		return (growth != null) ? String.format(Locale.ROOT, "×%.2f per job vs %,d", growth, baseJobs)
				: "no figure at " + baseJobs;
	}

	/** The default size's per-job figure, for the end of a W6 RESULT line. */
	private static String beside(String unit, int baseJobs, @Nullable Double base) {
		return String.format(Locale.ROOT, " %s_at_%d=%s", unit, baseJobs,
				(base != null) ? String.format(Locale.ROOT, "%.2f", base) : "n/a");
	}

	private static @Nullable Double perJobMicros(@Nullable Double jobsPerSecond) {
		return (jobsPerSecond != null && jobsPerSecond > 0) ? 1e6 / jobsPerSecond : null;
	}

	private static @Nullable Double growth(@Nullable Double now, @Nullable Double base) {
		return (now != null && base != null && base > 0) ? now / base : null;
	}

}
