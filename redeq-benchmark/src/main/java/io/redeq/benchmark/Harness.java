package io.redeq.benchmark;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every workload shares: the options, the Redis probe, the payload, fresh key
 * namespaces, snapshots, the output lines and the table of figures.
 */
final class Harness {

	final Options options;

	final RedisProbe probe;

	final ResultTable table = new ResultTable();

	/** The ~100-byte payload every system stores (a JSON string, for redeq's codec). */
	final String payload;

	private final PrintStream out;

	private final boolean ownServer;

	private final AtomicInteger namespaces = new AtomicInteger();

	Harness(Options options, RedisProbe probe, PrintStream out, boolean ownServer) {
		this.options = options;
		this.probe = probe;
		this.out = out;
		this.ownServer = ownServer;
		this.payload = "\"" + "x".repeat(options.payloadBytes - 2) + "\"";
	}

	/**
	 * A key namespace no earlier run used; on the benchmark's own server, an empty Redis
	 * too (FLUSHALL), so no system sees another's keys.
	 */
	String fresh(String workload) {
		if (this.ownServer) {
			this.probe.flushAll();
		}
		return "bench-" + workload + "-" + ProcessHandle.current().pid() + "-" + this.namespaces.incrementAndGet();
	}

	RedisClock clock() {
		return RedisClock.calibrate(this.probe.commands());
	}

	Snapshot snapshot() {
		return Snapshot.take(this.probe);
	}

	/** Waits until {@code jobs} jobs completed or {@code limit} passed. */
	static void awaitCompleted(Tracker tracker, int jobs, Duration limit) throws InterruptedException {
		long deadline = System.nanoTime() + limit.toNanos();
		while (tracker.completed() < jobs && System.nanoTime() < deadline) {
			Thread.sleep(2);
		}
	}

	/** The commands that took Redis the most time between two snapshots, per job. */
	void details(String workload, String system, Snapshot before, Snapshot after, int jobs) {
		Map<String, long[]> delta = after.stats().since(before.stats());
		String tag = "DETAIL workload=" + workload + " system=" + system;
		line("%s commands_per_job=%.2f (commandstats, script-internal included)", tag,
				after.commandsPerJob(before, jobs));
		delta.entrySet()
			.stream()
			.sorted(Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[1]).reversed())
			.limit(10)
			.forEach((e) -> line("%s cmd=%s calls=%d usec=%d calls_per_job=%.3f usec_per_job=%.2f", tag, e.getKey(),
					e.getValue()[0], e.getValue()[1], e.getValue()[0] / (double) Math.max(1, jobs),
					e.getValue()[1] / (double) Math.max(1, jobs)));
	}

	void startProfile() {
		if (this.options.profile) {
			this.probe.slowlogEverything(true, 50_000);
		}
	}

	void stopProfile(String workload, String system) {
		if (!this.options.profile) {
			return;
		}
		Map<String, long[]> byScript = this.probe.slowlogByScript(50_000);
		this.probe.slowlogEverything(false, 128);
		byScript.forEach((name, v) -> line(
				"PROFILE workload=%s system=%s command=%s calls=%d usec=%d usec_per_call=%.1f "
						+ "(last 50000 top-level commands, SLOWLOG timing)",
				workload, system, name, v[0], v[1], v[1] / (double) v[0]));
	}

	void line(String format, Object... args) {
		String text = String.format(Locale.ROOT, format, args);
		if (text.startsWith("RESULT ")) {
			// Other processes on the machine skew every figure: say how busy it was.
			text += " load1=" + loadAverage();
		}
		this.out.println(text);
		this.out.flush();
	}

	private static String loadAverage() {
		double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
		return (load < 0) ? "?" : String.format(Locale.ROOT, "%.2f", load);
	}

}
