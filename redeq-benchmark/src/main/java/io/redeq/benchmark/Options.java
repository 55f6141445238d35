package io.redeq.benchmark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Command-line options. Defaults are the QUALITY.md sizes; {@code --smoke} shrinks
 * everything to a few seconds, and options given after it still win.
 */
final class Options {

	static final List<String> ALL_WORKLOADS = List.of("W1", "W2", "W3", "W3b", "W4", "W5");

	List<String> workloads = ALL_WORKLOADS;

	/** W1 jobs (each mode). */
	int scheduleJobs = 200_000;

	/** W2 jobs. */
	int drainJobs = 100_000;

	/** W4 jobs. */
	int memoryJobs = 100_000;

	/** W3 rate, jobs/s. */
	int rate = 2_000;

	/** W3b rate, jobs/s. */
	int rateB = 10_000;

	/** W3 and W3b duration. */
	int seconds = 30;

	/** W5 measuring window. */
	int idleSeconds = 20;

	/** W3 delay range, ms after scheduling. */
	int delayMinMs = 1000;

	int delayMaxMs = 3000;

	int payloadBytes = 100;

	int consumers = 4;

	/** Jobs per scheduleAll call in W1 (batched), and when loading W2 and W4. */
	int batch = 1000;

	@Nullable String redisUrl;

	/** Engine settings to try other defaults with (0 = redeq's default). */
	int buckets;

	int sweepMs;

	int lockTtlMs;

	int migrateBatch;

	/**
	 * Records every top-level command in SLOWLOG and prints per-script time (adds
	 * overhead).
	 */
	boolean profile;

	boolean smoke;

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
				case "-h", "--help" -> throw new IllegalArgumentException(usage());
				default -> {
					if (i + 1 >= list.size()) {
						throw new IllegalArgumentException("Option " + arg + " needs a value\n" + usage());
					}
					String value = list.get(++i);
					switch (arg) {
						case "--workloads" -> o.workloads = workloads(value);
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
						case "--delay-ms" -> {
							String[] range = value.split("-");
							o.delayMinMs = positive(arg, range[0]);
							o.delayMaxMs = (range.length > 1) ? positive(arg, range[1]) : o.delayMinMs;
							if (o.delayMaxMs < o.delayMinMs) {
								throw new IllegalArgumentException(
										"--delay-ms wants MIN-MAX with MIN <= MAX, but was " + value);
							}
						}
						case "--payload-bytes" -> o.payloadBytes = Math.max(2, positive(arg, value));
						case "--consumers" -> o.consumers = positive(arg, value);
						case "--batch" -> o.batch = positive(arg, value);
						case "--redis" -> o.redisUrl = value;
						case "--buckets" -> o.buckets = positive(arg, value);
						case "--sweep-ms" -> o.sweepMs = positive(arg, value);
						case "--lock-ttl-ms" -> o.lockTtlMs = positive(arg, value);
						case "--migrate-batch" -> o.migrateBatch = positive(arg, value);
						default -> throw new IllegalArgumentException("Unknown option " + arg + "\n" + usage());
					}
				}
			}
		}
		return o;
	}

	private void smoke() {
		this.smoke = true;
		this.scheduleJobs = 2_000;
		this.drainJobs = 2_000;
		this.memoryJobs = 2_000;
		this.rate = 300;
		this.rateB = 1_000;
		this.seconds = 1;
		this.idleSeconds = 2;
		this.delayMinMs = 200;
		this.delayMaxMs = 600;
	}

	private static List<String> workloads(String value) {
		List<String> chosen = new ArrayList<>();
		for (String name : value.split(",")) {
			String wanted = name.trim();
			String match = ALL_WORKLOADS.stream()
				.filter((w) -> w.toLowerCase(Locale.ROOT).equals(wanted.toLowerCase(Locale.ROOT)))
				.findFirst()
				.orElseThrow(() -> new IllegalArgumentException(
						"Unknown workload '" + wanted + "'; choose from " + String.join(",", ALL_WORKLOADS)));
			chosen.add(match);
		}
		return chosen;
	}

	private static int positive(String option, String value) {
		try {
			int n = Integer.parseInt(value.replace("_", "").replace("k", "000"));
			if (n < 1) {
				throw new NumberFormatException();
			}
			return n;
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(option + " wants a positive whole number, but was '" + value + "'");
		}
	}

	static String usage() {
		return """
				Usage: java -jar redeq-benchmark.jar [options]
				  --workloads W1,W2,W3,W3b,W4,W5   which workloads to run (default: all)
				  --jobs N             jobs of W1 (per mode), W2 and W4 (default 200000 / 100000 / 100000)
				  --rate N             W3 jobs per second (default 2000)
				  --rate-b N           W3b jobs per second (default 10000)
				  --seconds N          W3 and W3b duration (default 30)
				  --idle-seconds N     W5 measuring window (default 20)
				  --delay-ms MIN-MAX   W3 delay after scheduling (default 1000-3000)
				  --payload-bytes N    payload size as JSON (default 100)
				  --consumers N        handler threads of the one subscription in W2/W3 (default 4)
				  --batch N            jobs per scheduleAll call (default 1000)
				  --redis URL          use this Redis (redis://host:port) instead of starting one;
				                       it is not flushed: every workload uses a fresh key prefix
				  --buckets N, --sweep-ms N, --lock-ttl-ms N, --migrate-batch N
				                       engine settings other than redeq's defaults (to try a change)
				  --profile            log every command in SLOWLOG and print time per script (slower)
				  --smoke              tiny sizes, a few seconds in all
				""";
	}

}
