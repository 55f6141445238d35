package io.redeq.benchmark;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * Counters read at one moment: Redis CPU time and INFO commandstats, and the CPU time of
 * this whole JVM (the system's client threads and the benchmark's own producer and
 * handler threads, which do the same work for every system).
 */
record Snapshot(long nanos, long redisCpuMicros, RedisProbe.CommandStats stats, long clientCpuNanos) {

	static Snapshot take(RedisProbe probe) {
		return new Snapshot(System.nanoTime(), probe.cpuMicros(), probe.commandStats(), processCpuNanos());
	}

	double redisCpuPerJob(Snapshot before, int jobs) {
		return (this.redisCpuMicros - before.redisCpuMicros) / (double) Math.max(1, jobs);
	}

	/** Microseconds of this JVM's CPU per job, or -1 where the JVM cannot tell. */
	double clientCpuPerJob(Snapshot before, int jobs) {
		if (this.clientCpuNanos < 0 || before.clientCpuNanos < 0) {
			return -1;
		}
		return (this.clientCpuNanos - before.clientCpuNanos) / 1000.0 / Math.max(1, jobs);
	}

	/** Redis commands per job, those scripts call included. */
	double commandsPerJob(Snapshot before, int jobs) {
		long calls = this.stats.since(before.stats).values().stream().mapToLong((v) -> v[0]).sum();
		return calls / (double) Math.max(1, jobs);
	}

	double secondsSince(Snapshot before) {
		return (this.nanos - before.nanos) / 1e9;
	}

	private static long processCpuNanos() {
		OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
		if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
			return sun.getProcessCpuTime();
		}
		return -1;
	}

}
