package io.redeq.benchmark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Command-line options. Defaults are the sizes docs/performance.md gives; {@code --smoke}
 * shrinks everything to a few seconds, and options given after it still win.
 */
final class Options {

	static final List<String> ALL_WORKLOADS = List.of("W1", "W1c", "W2", "W3", "W3b", "W4", "W5", "W6");

	/**
	 * W3b and W6 run only when asked for, or with {@code --full}: each takes minutes on
	 * three systems (W3b's 20,000 jobs/s, rehearsed first, on each).
	 */
	static final List<String> DEFAULT_WORKLOADS = List.of("W1", "W1c", "W2", "W3", "W4", "W5");

	/** redeq and its peers, in the order each workload runs them. */
	static final List<String> ALL_SYSTEMS = List.of(RedeqContender.NAME, TextbookContender.NAME,
			RedissonContender.NAME);

	List<String> workloads = DEFAULT_WORKLOADS;

	List<String> systems = ALL_SYSTEMS;

	/** W1 jobs (each mode). */
	int scheduleJobs = 200_000;

	/** W2 jobs. */
	int drainJobs = 100_000;

	/** W4 jobs. */
	int memoryJobs = 100_000;

	/** W6 jobs (W1 batches, W2 and W4 again at this size). */
	int growthJobs = 1_000_000;

	/** W3 rate, jobs/s. */
	int rate = 2_000;

	/** W3b rate, jobs/s. */
	int rateB = 20_000;

	/** W3 and W3b duration. */
	int seconds = 30;

	/** W5 measuring window. */
	int idleSeconds = 20;

	/**
	 * Unmeasured rehearsal of W3 and W3b on each system before its measured run, so the
	 * figures are those of a warmed-up JVM (0 = none).
	 */
	int warmUpSeconds = 10;

	/** W3 delay range, ms after scheduling. */
	int delayMinMs = 1000;

	int delayMaxMs = 3000;

	/**
	 * W3b delay range, ms after scheduling: jobs due shortly after they are scheduled, so
	 * the queue holds about half a second of the rate.
	 */
	int delayMinMsB = 100;

	int delayMaxMsB = 500;

	int payloadBytes = 100;

	int consumers = 4;

	/**
	 * Producer threads of W1c and W3b, each calling schedule one job at a time (0 = each
	 * workload's own default, see {@link #producers(int)}).
	 */
	int producers;

	/** Schedules one thread keeps in flight in W1's async mode. */
	int inFlight = 256;

	/** Jobs per scheduleAll call in W1 (batched), and when loading W2 and W4. */
	int batch = 1000;

	@Nullable String redisUrl;

	/** Engine settings to try other defaults with (0 = redeq's default). */
	int buckets;

	int sweepMs;

	int lockTtlMs;

	int migrateBatch;

	/** Jobs each redeq listener claims beyond its concurrency (-1 = redeq's default). */
	int prefetch = -1;

	/**
	 * Records every top-level command in SLOWLOG and prints per-script time (adds
	 * overhead).
	 */
	boolean profile;

	boolean smoke;

	/** W1c's producer threads unless {@code --producers} was given. */
	static final int W1C_PRODUCERS = 16;

	/** W3b's producer threads unless {@code --producers} was given. */
	static final int W3B_PRODUCERS = 8;

	/** {@code --producers} if given, else the workload's default. */
	int producers(int workloadDefault) {
		return (this.producers > 0) ? this.producers : workloadDefault;
	}

	static Options parse(String... args) {
		Options o = new Options();
		List<String> list = new ArrayList<>(Arrays.asList(args));
		if (list.contains("--smoke")) {
			o.smoke();
		}
		for (int i = 0; i < list.size(); i++) {
			String arg = list.get(i);
			switch (arg) {
				case "--smoke" -> {
				}
				case "--profile" -> o.profile = true;
				case "--full" -> o.workloads = ALL_WORKLOADS;
				case "-h", "--help" -> throw new IllegalArgumentException(usage());
				default -> {
					if (i + 1 >= list.size()) {
						throw new IllegalArgumentException("Option " + arg + " needs a value\n" + usage());
					}
					String value = list.get(++i);
					switch (arg) {
						case "--workloads" -> o.workloads = choose("workload", value, ALL_WORKLOADS);
						case "--systems" -> o.systems = choose("system", value, ALL_SYSTEMS);
						case "--growth-jobs" -> o.growthJobs = positive(arg, value);
						case "--jobs" -> {
							int jobs = positive(arg, value);
							o.scheduleJobs = jobs;
							o.drainJobs = jobs;
							o.memoryJobs = jobs;
						}
						case "--rate" -> o.rate = positive(arg, value);
						case "--rate-b" -> o.rateB = positive(arg, value);
						case "--seconds" -> o.seconds = positive(arg, value);
						case "--idle-seconds" -> o.idleSeconds = positive(arg, value);
						case "--warm-up-seconds" -> o.warmUpSeconds = zeroOrMore(arg, value);
						case "--delay-ms" -> {
							int[] range = range(arg, value);
							o.delayMinMs = range[0];
							o.delayMaxMs = range[1];
						}
						case "--delay-ms-b" -> {
							int[] range = range(arg, value);
							o.delayMinMsB = range[0];
							o.delayMaxMsB = range[1];
						}
						case "--payload-bytes" -> o.payloadBytes = Math.max(2, positive(arg, value));
						case "--consumers" -> o.consumers = positive(arg, value);
						case "--batch" -> o.batch = positive(arg, value);
						case "--in-flight" -> o.inFlight = positive(arg, value);
						case "--producers" -> o.producers = positive(arg, value);
						case "--redis" -> o.redisUrl = value;
						case "--buckets" -> o.buckets = positive(arg, value);
						case "--sweep-ms" -> o.sweepMs = positive(arg, value);
						case "--lock-ttl-ms" -> o.lockTtlMs = positive(arg, value);
						case "--migrate-batch" -> o.migrateBatch = positive(arg, value);
						case "--prefetch" -> o.prefetch = zeroOrMore(arg, value);
						default -> throw new IllegalArgumentException("Unknown option " + arg + "\n" + usage());
					}
				}
			}
		}
		return o;
	}

	/** MIN-MAX (or one number for both) with MIN <= MAX. */
	private static int[] range(String option, String value) {
		String[] parts = value.split("-");
		int min = positive(option, parts[0]);
		int max = (parts.length > 1) ? positive(option, parts[1]) : min;
		if (max < min) {
			throw new IllegalArgumentException(option + " wants MIN-MAX with MIN <= MAX, but was " + value);
		}
		return new int[] { min, max };
	}

	private void smoke() {
		this.smoke = true;
		this.scheduleJobs = 2_000;
		this.drainJobs = 2_000;
		this.memoryJobs = 2_000;
		this.growthJobs = 4_000;
		this.rate = 300;
		this.rateB = 1_000;
		this.seconds = 1;
		this.idleSeconds = 2;
		this.warmUpSeconds = 1;
		this.delayMinMs = 200;
		this.delayMaxMs = 600;
		this.delayMinMsB = 100;
		this.delayMaxMsB = 300;
	}

	/**
	 * The names in {@code value} (comma-separated, any case), in the order of
	 * {@code all}.
	 */
	private static List<String> choose(String what, String value, List<String> all) {
		List<String> wanted = new ArrayList<>();
		for (String name : value.split(",")) {
			String trimmed = name.trim();
			String match = all.stream()
				.filter((candidate) -> candidate.equalsIgnoreCase(trimmed))
				.findFirst()
				.orElseThrow(() -> new IllegalArgumentException(
						"Unknown " + what + " '" + trimmed + "'; choose from " + String.join(",", all)));
			wanted.add(match);
		}
		return all.stream().filter(wanted::contains).toList();
	}

	private static int positive(String option, String value) {
		int n = wholeNumber(option, value, "a positive");
		if (n < 1) {
			throw new IllegalArgumentException(option + " wants a positive whole number, but was '" + value + "'");
		}
		return n;
	}

	private static int zeroOrMore(String option, String value) {
		return wholeNumber(option, value, "a non-negative");
	}

	private static int wholeNumber(String option, String value, String kind) {
		try {
			int n = Integer.parseInt(value.replace("_", "").replace("k", "000"));
			if (n < 0) {
				throw new NumberFormatException();
			}
			return n;
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(option + " wants " + kind + " whole number, but was '" + value + "'");
		}
	}

	static String usage() {
		return """
				Usage: java -jar redeq-benchmark.jar [options]
				  --workloads W1,...,W6  which workloads to run (default: W1,W1c,W2,W3,W4,W5;
				                       W5 measures redeq only)
				  --systems S,...      which systems to run each workload on: redeq, textbook
				                       (ZADD + Lua mover + BLPOP), redisson (RDelayedQueue)
				                       (default: all three, in that order)
				  --full               all workloads, W3b and W6 too (W3b: 20,000 jobs/s; W6: W1
				                       batches, W2 and W4 at 1M jobs; adds 15-20 minutes)
				  --jobs N             jobs of W1 (per mode), W2 and W4 (default 200000 / 100000 / 100000)
				  --growth-jobs N      jobs of W6 (default 1000000)
				  --rate N             W3 jobs per second (default 2000)
				  --rate-b N           W3b jobs per second, from single schedule calls (default 20000)
				  --seconds N          W3 and W3b duration (default 30)
				  --idle-seconds N     W5 measuring window (default 20)
				  --warm-up-seconds N  unmeasured W3/W3b rehearsal per system before its
				                       measured run, so the JIT is done compiling (default 10; 0 none)
				  --delay-ms MIN-MAX   W3 delay after scheduling (default 1000-3000)
				  --delay-ms-b MIN-MAX W3b delay after scheduling (default 100-500)
				  --payload-bytes N    payload size as JSON (default 100)
				  --consumers N        handler threads of each system's consumers in W2/W3 (default 4)
				  --batch N            jobs per batch: scheduleAll call, pipeline, offers in flight
				                       (default 1000)
				  --in-flight N        W1 async (systems with an asynchronous schedule): schedules
				                       one thread keeps in flight (default 256)
				  --producers N        W1c and W3b: threads each calling schedule one job at a time
				                       (default 16 for W1c, 8 for W3b)
				  --redis URL          use this Redis (redis://host:port) instead of starting one;
				                       it is not flushed: every workload uses a fresh key prefix
				  --buckets N, --sweep-ms N, --lock-ttl-ms N, --migrate-batch N
				                       engine settings other than redeq's defaults (to try a change)
				  --prefetch N         jobs each redeq listener claims beyond its concurrency
				                       (default: redeq's, 64 x the concurrency)
				  --profile            log every command in SLOWLOG and print time per script (slower)
				  --smoke              tiny sizes, a few seconds per system
				""";
	}

}
