package io.redeq.benchmark;

import java.util.ArrayList;
import java.util.List;

/**
 * W4, memory per pending job: Redis {@code used_memory} after loading jobs due in an hour
 * (explicit 22-character ids, the payload of every workload), minus what it was with the
 * idle system before, per job. W6 runs it again at 1M jobs.
 */
final class MemoryWorkload {

	static final String ROW = "W4 Redis memory per pending job, bytes (lower is better)";

	private static final long HOUR_MS = 3_600_000L;

	private final Harness harness;

	MemoryWorkload(Harness harness) {
		this.harness = harness;
	}

	boolean run(Contender contender) throws InterruptedException {
		double bytes = measure(contender, this.harness.options.memoryJobs, "W4", "");
		this.harness.table.put(ROW, contender.name(), bytes, "%.0f", bytes);
		return bytes > 0;
	}

	/**
	 * Prints a RESULT line starting {@code workload=<label>}, ending with {@code beside};
	 * returns bytes per job, or 0 if a job was lost or doubled.
	 */
	double measure(Contender contender, int n, String label, String beside) throws InterruptedException {
		try (QueueUnderTest queue = contender.open(this.harness.fresh("w4"), null)) {
			Thread.sleep(300); // background work at start (redeq takes its bucket locks)
			long before = this.harness.probe.usedMemory();
			long due = System.currentTimeMillis() + HOUR_MS;
			for (int from = 0; from < n; from += this.harness.options.batch) {
				int size = Math.min(this.harness.options.batch, n - from);
				List<BenchJob> jobs = new ArrayList<>(size);
				for (int i = from; i < from + size; i++) {
					jobs.add(BenchJob.of(i, this.harness.payload, due + i));
				}
				queue.scheduleBatch(jobs);
			}
			long after = this.harness.probe.usedMemory();
			long stored = queue.pending();
			double perJob = (after - before) / (double) n;
			this.harness.line(
					"RESULT workload=%s system=%s jobs=%d payload_bytes=%d bytes_per_job=%.0f used_memory_before=%d used_memory_after=%d id=explicit%d missing=%d dup=%d%s",
					label, contender.name(), n, this.harness.options.payloadBytes, perJob, before, after,
					BenchJob.ID_LENGTH, Math.max(0, n - stored), Math.max(0, stored - n), beside);
			return (stored == n) ? perJob : 0;
		}
	}

}
