package io.redeq.benchmark;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.RedeqClient;
import io.redeq.SubscriptionOptions;
import io.redeq.TopicStats;
import io.redeq.test.RedisServer;

/**
 * redeq's benchmark: the workloads W1-W5 of QUALITY.md against a redis-server of its own
 * (no persistence, free port) or {@code --redis URL}, one {@code RESULT} line per
 * workload.
 *
 * <p>
 * Every workload uses a fresh key prefix and its own engine (and, on its own server,
 * starts from FLUSHALL), so none sees another's keys or threads. Every loop is bounded in
 * count and time.
 */
public final class Benchmark {

	private static final long HOUR_MS = 3_600_000L;

	/** Longest any workload waits for its jobs after producing them. */
	private static final Duration DRAIN_LIMIT = Duration.ofSeconds(120);

	private final Options options;

	private final PrintStream out;

	private final AtomicInteger prefixes = new AtomicInteger();

	private RedisClient client;

	private RedisURI uri;

	private RedisProbe probe;

	private boolean ownServer;

	private String payload;

	Benchmark(Options options, PrintStream out) {
		this.options = options;
		this.out = out;
	}

	public static void main(String[] args) {
		Options options;
		try {
			options = Options.parse(args);
		}
		catch (IllegalArgumentException ex) {
			System.err.println(ex.getMessage());
			System.exit(2);
			return;
		}
		int status = new Benchmark(options, System.out).run();
		System.exit(status);
	}

	/**
	 * Runs the benchmark in this JVM; returns 0 when every workload ran and lost nothing.
	 */
	public static int run(PrintStream out, String... args) {
		return new Benchmark(Options.parse(args), out).run();
	}

	int run() {
		this.payload = "\"" + "x".repeat(this.options.payloadBytes - 2) + "\"";
		RedisServer server = null;
		int status = 0;
		try {
			if (this.options.redisUrl != null) {
				this.uri = RedisURI.create(this.options.redisUrl);
			}
			else {
				server = new RedisServer().start();
				this.uri = server.uri();
				this.ownServer = true;
			}
			this.client = RedisClient.create(this.uri);
			this.probe = new RedisProbe(this.client, this.uri);
			printEnvironment();
			for (String workload : this.options.workloads) {
				try {
					boolean ok = switch (workload) {
						case "W1" -> w1();
						case "W2" -> w2();
						case "W3" -> w3("W3", this.options.rate);
						case "W3b" -> w3("W3b", this.options.rateB);
						case "W4" -> w4();
						case "W5" -> w5();
						default -> throw new IllegalArgumentException(workload);
					};
					if (!ok) {
						status = 1;
					}
				}
				catch (Exception ex) {
					status = 1;
					line("RESULT workload=%s error=\"%s\"", workload, String.valueOf(ex).replace('"', '\''));
					ex.printStackTrace();
				}
			}
		}
		finally {
			if (this.probe != null) {
				this.probe.close();
			}
			if (this.client != null) {
				this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
			if (server != null) {
				server.close();
			}
		}
		return status;
	}

	private void printEnvironment() {
		Runtime runtime = Runtime.getRuntime();
		line("MACHINE cores=%d os=\"%s %s %s\" cpu=\"%s\" mem_total=\"%s\"", runtime.availableProcessors(),
				System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"),
				procValue("/proc/cpuinfo", "model name"), procValue("/proc/meminfo", "MemTotal"));
		line("JDK version=%s vm=\"%s\" max_heap_mb=%d args=\"%s\"", System.getProperty("java.version"),
				System.getProperty("java.vm.name"), runtime.maxMemory() >> 20,
				String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
		Map<String, String> server = this.probe.info("server");
		line("REDIS version=%s url=redis://%s:%d own_server=%s persistence=%s hz=%s", server.get("redis_version"),
				this.uri.getHost(), this.uri.getPort(), this.ownServer ? "yes" : "no",
				this.ownServer ? "none" : "as-configured", server.get("hz"));
		Redeq.Builder defaults = Redeq.builder(this.client);
		line("CONFIG payload_bytes=%d consumers=%d batch=%d buckets=%d sweep_ms=%d lock_ttl_ms=%d migrate_batch=%d smoke=%s profile=%s",
				this.options.payloadBytes, this.options.consumers, this.options.batch,
				(this.options.buckets > 0) ? this.options.buckets : defaults.options().buckets(),
				(this.options.sweepMs > 0) ? this.options.sweepMs : defaults.options().sweepInterval().toMillis(),
				(this.options.lockTtlMs > 0) ? this.options.lockTtlMs : defaults.options().lockTtl().toMillis(),
				(this.options.migrateBatch > 0) ? this.options.migrateBatch : defaults.options().batchSize(),
				this.options.smoke, this.options.profile);
	}

	// ---- W1: schedule throughput
	// -------------------------------------------------------------

	private boolean w1() {
		int n = this.options.scheduleJobs;
		try (Redeq redeq = engine(fresh("w1"), null)) {
			RedeqClient client = redeq.client();
			warmUp(client, Math.min(5000, n));

			Snapshot before = snapshot();
			long start = System.nanoTime();
			long deadline = start + Duration.ofMinutes(3).toNanos();
			int done = 0;
			ThreadLocalRandom random = ThreadLocalRandom.current();
			while (done < n && ((done & 1023) != 0 || System.nanoTime() < deadline)) {
				client.schedule("w1-single", this.payload, Duration.ofMillis(HOUR_MS + random.nextLong(HOUR_MS)));
				done++;
			}
			double seconds = (System.nanoTime() - start) / 1e9;
			Snapshot after = snapshot();
			long stored = redeq.admin().stats("w1-single").delayed();
			line("RESULT workload=W1 mode=single jobs=%d threads=1 jobs_per_s=%.0f seconds=%.2f redis_cpu_us_per_job=%.1f missing=%d dup=%d",
					done, done / seconds, seconds, after.cpuPerJob(before, done), Math.max(0, done - stored),
					Math.max(0, stored - done));
			details("W1", "single", before, after, done);
			boolean ok = stored == done;

			before = snapshot();
			start = System.nanoTime();
			deadline = start + Duration.ofMinutes(3).toNanos();
			done = 0;
			while (done < n && System.nanoTime() < deadline) {
				int size = Math.min(this.options.batch, n - done);
				List<Job> jobs = new ArrayList<>(size);
				for (int i = 0; i < size; i++) {
					jobs.add(Job.builder("w1-batch")
						.payload(this.payload)
						.delay(Duration.ofMillis(HOUR_MS + random.nextLong(HOUR_MS)))
						.build());
				}
				client.scheduleAll(jobs);
				done += size;
			}
			seconds = (System.nanoTime() - start) / 1e9;
			after = snapshot();
			stored = redeq.admin().stats("w1-batch").delayed();
			line("RESULT workload=W1 mode=batch jobs=%d threads=1 batch=%d jobs_per_s=%.0f seconds=%.2f redis_cpu_us_per_job=%.1f missing=%d dup=%d",
					done, this.options.batch, done / seconds, seconds, after.cpuPerJob(before, done),
					Math.max(0, done - stored), Math.max(0, stored - done));
			details("W1", "batch", before, after, done);
			return ok && stored == done;
		}
	}

	/** Loads scripts and warms the JIT on a topic of its own, outside the measurement. */
	private void warmUp(RedeqClient client, int jobs) {
		for (int i = 0; i < jobs; i++) {
			client.schedule("warm-up", this.payload, Duration.ofHours(1));
		}
		List<Job> batch = new ArrayList<>();
		for (int i = 0; i < jobs; i++) {
			batch.add(Job.builder("warm-up").payload(this.payload).delay(Duration.ofHours(1)).build());
		}
		client.scheduleAll(batch);
	}

	// ---- W2: drain throughput
	// ----------------------------------------------------------------

	private boolean w2() throws InterruptedException {
		int n = this.options.drainJobs;
		String prefix = fresh("w2");
		RedisClock clock = RedisClock.calibrate(this.probe.commands());
		Tracker tracker = new Tracker(n, null);
		try (Redeq redeq = engine(prefix, tracker)) {
			redeq.subscribe("w2", String.class, (payload, delivery) -> tracker.delivered(delivery),
					SubscriptionOptions.builder().concurrency(this.options.consumers).build());
			// Load everything before the first job is due: the lead time allows 20k
			// jobs/s of loading
			// (a busy machine loads slower than W1 suggests); the line says if loading
			// ran late.
			long firstDue = clock.nowMillis() + 1000 + n / 20;
			for (int from = 0; from < n; from += this.options.batch) {
				int size = Math.min(this.options.batch, n - from);
				List<Job> jobs = new ArrayList<>(size);
				for (int i = from; i < from + size; i++) {
					jobs.add(Job.builder("w2")
						.id(Integer.toString(i))
						.payload(this.payload)
						.dueAt(Instant.ofEpochMilli(firstDue + i % 1000))
						.build());
				}
				redeq.client().scheduleAll(jobs);
			}
			long loadedAt = clock.nowMillis();
			Snapshot before = snapshot();
			startProfile();
			awaitCompleted(tracker, n, DRAIN_LIMIT.plusMillis(Math.max(0, firstDue - loadedAt)));
			Thread.sleep(200); // a late duplicate would show up here
			Snapshot after = snapshot();
			double seconds = (clock.redisMicrosAt(tracker.lastCompletedNanos()) - firstDue * 1000) / 1e6;
			int completed = tracker.completed();
			int missing = tracker.missing(n);
			int dup = tracker.duplicates();
			TopicStats stats = redeq.admin().stats("w2");
			line("RESULT workload=W2 jobs=%d consumers=%d jobs_per_s=%.0f drain_s=%.3f completed=%d redis_cpu_us_per_job=%.1f loaded_before_due=%s left_pending=%d missing=%d dup=%d",
					n, this.options.consumers, completed / seconds, seconds, completed,
					after.cpuPerJob(before, completed),
					(loadedAt < firstDue) ? "yes" : "no(" + (loadedAt - firstDue) + "ms_late)", stats.pending(),
					missing, dup);
			details("W2", null, before, after, completed);
			stopProfile("W2");
			return missing == 0 && dup == 0;
		}
	}

	// ---- W3, W3b: lateness at a steady rate
	// --------------------------------------------------

	private boolean w3(String name, int rate) throws InterruptedException {
		int total = (int) Math.min(Integer.MAX_VALUE - 1, (long) rate * this.options.seconds);
		String prefix = fresh(name.toLowerCase(Locale.ROOT));
		RedisClock clock = RedisClock.calibrate(this.probe.commands());
		Tracker tracker = new Tracker(total, clock);
		String topic = name.toLowerCase(Locale.ROOT);
		try (Redeq redeq = engine(prefix, tracker)) {
			redeq.subscribe(topic, String.class, (payload, delivery) -> tracker.delivered(delivery),
					SubscriptionOptions.builder().concurrency(this.options.consumers).build());
			RedeqClient client = redeq.client();
			ThreadLocalRandom random = ThreadLocalRandom.current();
			int spread = this.options.delayMaxMs - this.options.delayMinMs + 1;
			Snapshot before = snapshot();
			startProfile();
			long start = System.nanoTime();
			long end = start + Duration.ofSeconds(this.options.seconds + 10).toNanos();
			int sent = 0;
			while (sent < total && System.nanoTime() < end) {
				long elapsed = System.nanoTime() - start;
				long target = Math.min(total, elapsed * rate / 1_000_000_000L + 1);
				if (target <= sent) {
					LockSupport.parkNanos(200_000);
					continue;
				}
				int size = (int) Math.min(this.options.batch, target - sent);
				List<Job> jobs = new ArrayList<>(size);
				for (int i = sent; i < sent + size; i++) {
					jobs.add(Job.builder(topic)
						.id(Integer.toString(i))
						.payload(this.payload)
						.delay(Duration.ofMillis(this.options.delayMinMs + random.nextInt(spread)))
						.build());
				}
				client.scheduleAll(jobs);
				sent += size;
			}
			double producedSeconds = (System.nanoTime() - start) / 1e9;
			awaitCompleted(tracker, sent, Duration.ofMillis(this.options.delayMaxMs).plusSeconds(30));
			Thread.sleep(200);
			Snapshot after = snapshot();
			RedisClock recheck = RedisClock.calibrate(this.probe.commands());
			Histogram lateness = tracker.lateness();
			int completed = tracker.completed();
			int missing = tracker.missing(sent);
			int dup = tracker.duplicates();
			line("RESULT workload=%s rate=%d seconds=%d jobs=%d consumers=%d produced_per_s=%.0f p50_ms=%.2f p99_ms=%.2f p999_ms=%.2f max_ms=%.2f mean_ms=%.2f redis_cpu_us_per_job=%.1f completed=%d early=%d clock_err_us=%d clock_drift_us=%d missing=%d dup=%d",
					name, rate, this.options.seconds, sent, this.options.consumers, sent / producedSeconds,
					ms(lateness.getValueAtPercentile(50)), ms(lateness.getValueAtPercentile(99)),
					ms(lateness.getValueAtPercentile(99.9)), ms(lateness.getMaxValue()), lateness.getMean() / 1000.0,
					after.cpuPerJob(before, completed), completed, tracker.early(), clock.errorMicros(),
					clock.driftMicros(recheck), missing, dup);
			details(name, null, before, after, completed);
			stopProfile(name);
			return missing == 0 && dup == 0;
		}
	}

	private static double ms(double micros) {
		return micros / 1000.0;
	}

	// ---- W4: memory per pending job
	// ----------------------------------------------------------

	private boolean w4() throws InterruptedException {
		int n = this.options.memoryJobs;
		try (Redeq redeq = engine(fresh("w4"), null)) {
			Thread.sleep(300); // the migrator takes its bucket locks first
			long before = this.probe.usedMemory();
			for (int from = 0; from < n; from += this.options.batch) {
				int size = Math.min(this.options.batch, n - from);
				List<Job> jobs = new ArrayList<>(size);
				for (int i = 0; i < size; i++) {
					jobs.add(Job.builder("w4").payload(this.payload).delay(Duration.ofHours(1)).build());
				}
				redeq.client().scheduleAll(jobs);
			}
			long after = this.probe.usedMemory();
			long stored = redeq.admin().stats("w4").delayed();
			line("RESULT workload=W4 jobs=%d payload_bytes=%d bytes_per_job=%.0f used_memory_before=%d used_memory_after=%d id=generated missing=%d dup=%d",
					n, this.options.payloadBytes, (after - before) / (double) n, before, after, Math.max(0, n - stored),
					Math.max(0, stored - n));
			return stored == n;
		}
	}

	// ---- W5: idle cost
	// -----------------------------------------------------------------------

	private boolean w5() throws InterruptedException, IOException {
		int listeners = 4;
		try (Redeq redeq = engine(fresh("w5"), null)) {
			for (int i = 0; i < listeners; i++) {
				redeq.subscribe("idle-" + i, String.class, (payload, delivery) -> {
				});
			}
			Thread.sleep(this.options.smoke ? 500 : 3000); // ownership and blocking reads
															// settle
			try (RedisProbe.Monitor monitor = this.probe.monitor()) {
				Snapshot before = snapshot();
				monitor.startCounting();
				Thread.sleep(this.options.idleSeconds * 1000L);
				long topLevel = monitor.stopCounting();
				Snapshot after = snapshot();
				double seconds = (after.nanos - before.nanos) / 1e9;
				Map<String, long[]> delta = after.stats.since(before.stats);
				long all = delta.values().stream().mapToLong((v) -> v[0]).sum();
				long scripts = delta.getOrDefault("evalsha", new long[2])[0]
						+ delta.getOrDefault("eval", new long[2])[0];
				line("RESULT workload=W5 listeners=%d seconds=%.1f commands_per_s=%.1f toplevel_per_s=%.1f scripts_per_s=%.1f redis_cpu_ms_per_s=%.2f",
						listeners, seconds, all / seconds, topLevel / seconds, scripts / seconds,
						(after.cpuMicros - before.cpuMicros) / 1000.0 / seconds);
				delta.forEach((command, v) -> line(
						"DETAIL workload=W5 cmd=%s calls_per_s=%.2f (commandstats, script-internal included)", command,
						v[0] / seconds));
				monitor.byCommand()
					.forEach((command, calls) -> line("DETAIL workload=W5 toplevel_cmd=%s calls_per_s=%.2f", command,
							calls / seconds));
			}
			return true;
		}
	}

	// ---- helpers
	// -----------------------------------------------------------------------------

	private Redeq engine(String prefix, @Nullable Tracker tracker) {
		Redeq.Builder builder = Redeq.builder(this.client).prefix(prefix);
		if (this.options.buckets > 0) {
			builder.buckets(this.options.buckets);
		}
		if (this.options.sweepMs > 0) {
			builder.sweepInterval(Duration.ofMillis(this.options.sweepMs));
		}
		if (this.options.lockTtlMs > 0) {
			builder.lockTtl(Duration.ofMillis(this.options.lockTtlMs));
		}
		if (this.options.migrateBatch > 0) {
			builder.batchSize(this.options.migrateBatch);
		}
		if (tracker != null) {
			builder.lifecycleListener(tracker);
		}
		return builder.build();
	}

	/**
	 * A prefix no earlier workload used; on the benchmark's own server, an empty Redis
	 * too.
	 */
	private String fresh(String workload) {
		if (this.ownServer) {
			this.probe.flushAll();
		}
		return "bench-" + workload + "-" + ProcessHandle.current().pid() + "-" + this.prefixes.incrementAndGet();
	}

	private static void awaitCompleted(Tracker tracker, int jobs, Duration limit) throws InterruptedException {
		long deadline = System.nanoTime() + limit.toNanos();
		while (tracker.completed() < jobs && System.nanoTime() < deadline) {
			Thread.sleep(2);
		}
	}

	private Snapshot snapshot() {
		return new Snapshot(System.nanoTime(), this.probe.cpuMicros(), this.probe.commandStats());
	}

	/** The commands that took Redis the most time between two snapshots, per job. */
	private void details(String workload, @Nullable String mode, Snapshot before, Snapshot after, int jobs) {
		Map<String, long[]> delta = after.stats.since(before.stats);
		long totalCalls = delta.values().stream().mapToLong((v) -> v[0]).sum();
		line("DETAIL workload=%s%s commands_per_job=%.2f (commandstats, script-internal included)", workload,
				(mode != null) ? " mode=" + mode : "", totalCalls / (double) Math.max(1, jobs));
		delta.entrySet()
			.stream()
			.sorted(Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[1]).reversed())
			.limit(10)
			.forEach((e) -> line("DETAIL workload=%s%s cmd=%s calls=%d usec=%d calls_per_job=%.3f usec_per_job=%.2f",
					workload, (mode != null) ? " mode=" + mode : "", e.getKey(), e.getValue()[0], e.getValue()[1],
					e.getValue()[0] / (double) Math.max(1, jobs), e.getValue()[1] / (double) Math.max(1, jobs)));
	}

	private void startProfile() {
		if (this.options.profile) {
			this.probe.slowlogEverything(true, 50_000);
		}
	}

	private void stopProfile(String workload) {
		if (!this.options.profile) {
			return;
		}
		Map<String, long[]> byScript = this.probe.slowlogByScript(50_000);
		this.probe.slowlogEverything(false, 128);
		byScript.forEach((name, v) -> line(
				"PROFILE workload=%s command=%s calls=%d usec=%d usec_per_call=%.1f "
						+ "(last 50000 top-level commands, SLOWLOG timing)",
				workload, name, v[0], v[1], v[1] / (double) v[0]));
	}

	private void line(String format, Object... args) {
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

	private static String procValue(String file, String key) {
		try {
			for (String line : Files.readAllLines(Path.of(file))) {
				if (line.startsWith(key)) {
					return line.substring(line.indexOf(':') + 1).trim();
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// not Linux
		}
		return "?";
	}

	private record Snapshot(long nanos, long cpuMicros, RedisProbe.CommandStats stats) {

		double cpuPerJob(Snapshot before, int jobs) {
			return (this.cpuMicros - before.cpuMicros) / (double) Math.max(1, jobs);
		}

	}

}
