package io.redeq.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;

import io.redeq.Redeq;
import io.redeq.benchmark.peer.TextbookDelayQueue;
import io.redeq.test.RedisServer;

/**
 * redeq's benchmark: the workloads of docs/performance.md against a redis-server of its
 * own (no persistence, free port) or {@code --redis URL}, each run on redeq and on its
 * peers (the textbook Redis delayed queue and Redisson's RDelayedQueue) one after the
 * other; one {@code RESULT} line per workload per system, then a table of every figure
 * side by side with redeq's ratio to each peer.
 *
 * <p>
 * Every run of a workload uses a fresh key namespace and its own client (and, on its own
 * server, starts from FLUSHALL), so no system sees another's keys or threads. Every loop
 * is bounded in count and time.
 */
public final class Benchmark {

	private final Options options;

	private final PrintStream out;

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
		RedisServer server = null;
		RedisClient client = null;
		RedisProbe probe = null;
		int status = 0;
		try {
			RedisURI uri;
			if (this.options.redisUrl != null) {
				uri = RedisURI.create(this.options.redisUrl);
			}
			else {
				server = new RedisServer().start();
				uri = server.uri();
			}
			client = RedisClient.create(uri);
			probe = new RedisProbe(client, uri);
			Harness harness = new Harness(this.options, probe, this.out, server != null);
			RedeqContender redeq = new RedeqContender(client, this.options);
			printEnvironment(harness, uri, server != null, redeq);
			List<Contender> contenders = contenders(redeq, client, uri);
			for (String workload : this.options.workloads) {
				for (Contender contender : contenders) {
					if (!runsOn(workload, contender)) {
						continue;
					}
					try {
						if (!run(harness, workload, contender, redeq)) {
							status = 1;
						}
					}
					catch (Exception ex) {
						status = 1;
						harness.line("RESULT workload=%s system=%s error=\"%s\"", workload, contender.name(),
								String.valueOf(ex).replace('"', '\''));
						ex.printStackTrace();
					}
				}
			}
			printTable(harness);
		}
		finally {
			if (probe != null) {
				probe.close();
			}
			if (client != null) {
				client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
			if (server != null) {
				server.close();
			}
		}
		return status;
	}

	private List<Contender> contenders(RedeqContender redeq, RedisClient client, RedisURI uri) {
		List<Contender> contenders = new ArrayList<>();
		for (String system : this.options.systems) {
			contenders.add(switch (system) {
				case RedeqContender.NAME -> redeq;
				case TextbookContender.NAME -> new TextbookContender(client, uri);
				case RedissonContender.NAME -> new RedissonContender(uri);
				default -> throw new IllegalArgumentException(system);
			});
		}
		return contenders;
	}

	/** W5 (idle cost) is redeq's own target; the peers run the rest. */
	private static boolean runsOn(String workload, Contender contender) {
		return contender.name().equals(RedeqContender.NAME) || !workload.equals("W5");
	}

	private static boolean run(Harness harness, String workload, Contender contender, RedeqContender redeq)
			throws InterruptedException, IOException {
		return switch (workload) {
			case "W1" -> new ScheduleWorkload(harness).run(contender);
			case "W1c" -> new ScheduleWorkload(harness).concurrent(contender);
			case "W2" -> new DrainWorkload(harness).run(contender);
			case "W3" -> new LatenessWorkload(harness).w3(contender);
			case "W3b" -> new LatenessWorkload(harness).w3b(contender);
			case "W4" -> new MemoryWorkload(harness).run(contender);
			case "W5" -> new IdleWorkload(harness).run(redeq);
			case "W6" -> new GrowthWorkload(harness).run(contender);
			default -> throw new IllegalArgumentException(workload);
		};
	}

	private void printTable(Harness harness) {
		if (harness.table.isEmpty()) {
			return;
		}
		harness.line("");
		harness.line(
				"TABLE side by side, one run (ratio = redeq's figure / the peer's; each row says which way is better)");
		for (String line : harness.table.markdown()) {
			harness.line("%s", line);
		}
	}

	private void printEnvironment(Harness harness, RedisURI uri, boolean ownServer, RedeqContender redeq) {
		Runtime runtime = Runtime.getRuntime();
		harness.line("MACHINE cores=%d os=\"%s %s %s\" cpu=\"%s\" mem_total=\"%s\"", runtime.availableProcessors(),
				System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"),
				procValue("/proc/cpuinfo", "model name"), procValue("/proc/meminfo", "MemTotal"));
		harness.line("JDK version=%s vm=\"%s\" max_heap_mb=%d args=\"%s\"", System.getProperty("java.version"),
				System.getProperty("java.vm.name"), runtime.maxMemory() >> 20,
				String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
		Map<String, String> server = harness.probe.info("server");
		harness.line("REDIS version=%s url=redis://%s:%d own_server=%s persistence=%s hz=%s",
				server.get("redis_version"), uri.getHost(), uri.getPort(), ownServer ? "yes" : "no",
				ownServer ? "none" : "as-configured", server.get("hz"));
		Redeq.Builder engine = redeq.defaults();
		harness.line(
				"CONFIG systems=%s payload_bytes=%d consumers=%d batch=%d buckets=%d sweep_ms=%d lock_ttl_ms=%d migrate_batch=%d prefetch=%d max_pending=%d smoke=%s profile=%s",
				String.join(",", this.options.systems), this.options.payloadBytes, this.options.consumers,
				this.options.batch, engine.options().buckets(), engine.options().sweepInterval().toMillis(),
				engine.options().lockTtl().toMillis(), engine.options().batchSize(),
				engine.options().prefetchFor(this.options.consumers), engine.options().maxPending(), this.options.smoke,
				this.options.profile);
		harness.line(
				"PEERS textbook=\"HSET+ZADD; Lua mover every %d ms, %d ids per call; BLPOP consumers; no leases, no acks\" redisson=\"%s RDelayedQueue over RBlockingQueue, StringCodec, default client settings; RDelayedQueue is deprecated there for RReliableQueue, which the open-source jar lacks\"",
				TextbookDelayQueue.MOVE_INTERVAL_MS, TextbookDelayQueue.MOVE_CHUNK, redissonVersion());
	}

	/** From the Maven metadata Redisson's jar carries (the shaded jar keeps it). */
	private static String redissonVersion() {
		Properties properties = new Properties();
		try (InputStream in = Benchmark.class
			.getResourceAsStream("/META-INF/maven/org.redisson/redisson/pom.properties")) {
			if (in != null) {
				properties.load(in);
			}
		}
		catch (IOException ex) {
			// unknown
		}
		return "Redisson " + properties.getProperty("version", "?");
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

}
