package io.redeq.benchmark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The benchmark's own view of Redis, on a connection of its own: INFO sections, the Redis
 * clock, FLUSHALL, SLOWLOG and a MONITOR reader. Nothing here is on redeq's paths.
 */
final class RedisProbe implements AutoCloseable {

	private final RedisURI uri;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> redis;

	/** INFO calls this probe made; they are taken out of the command counts. */
	private final AtomicLong infoCalls = new AtomicLong();

	private final RedisClient client;

	RedisProbe(RedisClient client, RedisURI uri) {
		this.client = client;
		this.uri = uri;
		this.connection = client.connect(uri);
		this.redis = this.connection.sync();
	}

	/**
	 * A connection of its own to the Redis under test, for a measurement outside the
	 * systems.
	 */
	StatefulRedisConnection<String, String> connect() {
		return this.client.connect(this.uri);
	}

	RedisCommands<String, String> commands() {
		return this.redis;
	}

	Map<String, String> info(String section) {
		this.infoCalls.incrementAndGet();
		Map<String, String> values = new HashMap<>();
		for (String line : this.redis.info(section).split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && !line.startsWith("#")) {
				values.put(line.substring(0, colon), line.substring(colon + 1).trim());
			}
		}
		return values;
	}

	String version() {
		return info("server").getOrDefault("redis_version", "?");
	}

	long usedMemory() {
		return Long.parseLong(info("memory").get("used_memory"));
	}

	/** Redis CPU time (user + system) in microseconds. */
	long cpuMicros() {
		Map<String, String> cpu = info("cpu");
		double seconds = Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"));
		return Math.round(seconds * 1_000_000);
	}

	/**
	 * Calls and microseconds per command, from INFO commandstats (script-internal calls
	 * included).
	 */
	CommandStats commandStats() {
		Map<String, long[]> stats = new TreeMap<>();
		info("commandstats").forEach((key, value) -> {
			if (!key.startsWith("cmdstat_")) {
				return;
			}
			long calls = 0;
			long usec = 0;
			for (String part : value.split(",")) {
				if (part.startsWith("calls=")) {
					calls = Long.parseLong(part.substring(6));
				}
				else if (part.startsWith("usec=")) {
					usec = Long.parseLong(part.substring(5));
				}
			}
			stats.put(key.substring(8), new long[] { calls, usec });
		});
		return new CommandStats(stats, this.infoCalls.get());
	}

	void flushAll() {
		this.redis.flushall();
		this.redis.slowlogReset();
	}

	/**
	 * Records every top-level command in SLOWLOG (for per-script profiling), or stops
	 * doing so.
	 */
	void slowlogEverything(boolean on, int maxLen) {
		this.redis.configSet("slowlog-max-len", Integer.toString(maxLen));
		this.redis.configSet("slowlog-log-slower-than", on ? "0" : "10000");
		this.redis.slowlogReset();
	}

	/**
	 * Per-script totals from the SLOWLOG entries recorded since
	 * {@link #slowlogEverything}: name -> {calls, usec}. Scripts are named through
	 * redeq's script table (read reflectively: it is internal).
	 */
	Map<String, long[]> slowlogByScript(int max) {
		Map<String, String> names = scriptNames();
		Map<String, long[]> totals = new TreeMap<>();
		List<Object> entries = this.redis.slowlogGet(max);
		for (Object entry : entries) {
			List<?> fields = (List<?>) entry;
			long micros = ((Number) fields.get(2)).longValue();
			List<?> args = (List<?>) fields.get(3);
			String command = String.valueOf(args.get(0)).toLowerCase();
			String name = command;
			if (command.equals("evalsha") && args.size() > 1) {
				name = "script:" + names.getOrDefault(String.valueOf(args.get(1)), String.valueOf(args.get(1)));
			}
			else if (command.equals("fcall") && args.size() > 1) {
				// redeq_<library digest>_<script>: the script, as a function
				// of the library
				String function = String.valueOf(args.get(1));
				name = "function:" + function.substring(function.indexOf('_', "redeq_".length()) + 1);
			}
			long[] total = totals.computeIfAbsent(name, (n) -> new long[2]);
			total[0]++;
			total[1] += micros;
		}
		return totals;
	}

	private static Map<String, String> scriptNames() {
		Map<String, String> names = new HashMap<>();
		try {
			Class<?> scripts = Class.forName("io.redeq.internal.redis.script.Scripts");
			for (Field field : scripts.getDeclaredFields()) {
				if (Modifier.isStatic(field.getModifiers()) && field.getType().getSimpleName().equals("LuaScript")) {
					field.setAccessible(true);
					Object script = field.get(null);
					Method sha = script.getClass().getDeclaredMethod("sha");
					Method name = script.getClass().getDeclaredMethod("name");
					sha.setAccessible(true);
					name.setAccessible(true);
					names.put((String) sha.invoke(script), (String) name.invoke(script));
				}
			}
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			// unnamed scripts are reported by digest
		}
		return names;
	}

	/** Starts counting top-level commands with MONITOR on a raw socket of its own. */
	Monitor monitor() throws IOException {
		return new Monitor(this.uri.getHost(), this.uri.getPort());
	}

	@Override
	public void close() {
		this.connection.close();
	}

	/** A snapshot of INFO commandstats. */
	record CommandStats(Map<String, long[]> byCommand, long probeInfoCalls) {

		/**
		 * Per-command {calls, usec} since {@code before}, with this probe's own INFO
		 * calls removed.
		 */
		Map<String, long[]> since(CommandStats before) {
			Map<String, long[]> delta = new TreeMap<>();
			this.byCommand.forEach((command, now) -> {
				long[] then = before.byCommand.getOrDefault(command, new long[2]);
				long calls = now[0] - then[0];
				long usec = now[1] - then[1];
				if (command.equals("info")) {
					calls -= (this.probeInfoCalls - before.probeInfoCalls);
					usec = (calls <= 0) ? 0 : usec;
				}
				if (calls > 0) {
					delta.put(command, new long[] { calls, usec });
				}
			});
			return delta;
		}

	}

	/**
	 * MONITOR on a socket of its own: counts top-level commands (not those scripts call,
	 * which MONITOR marks "lua") other than INFO and other than its own.
	 */
	static final class Monitor implements AutoCloseable {

		private final Socket socket;

		private final Thread reader;

		private final AtomicLong topLevel = new AtomicLong();

		private final Map<String, Long> byCommand = new TreeMap<>();

		private volatile boolean counting;

		Monitor(String host, int port) throws IOException {
			this.socket = new Socket();
			this.socket.connect(new InetSocketAddress(host, port), 5000);
			OutputStream out = this.socket.getOutputStream();
			out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(this.socket.getInputStream(), StandardCharsets.UTF_8));
			String ok = in.readLine();
			if (ok == null || !ok.startsWith("+OK")) {
				this.socket.close();
				throw new IOException("MONITOR refused: " + ok);
			}
			this.reader = new Thread(() -> read(in), "bench-monitor");
			this.reader.setDaemon(true);
			this.reader.start();
		}

		void startCounting() {
			this.counting = true;
		}

		long stopCounting() {
			this.counting = false;
			return this.topLevel.get();
		}

		synchronized Map<String, Long> byCommand() {
			return new TreeMap<>(this.byCommand);
		}

		private void read(BufferedReader in) {
			try {
				String line;
				while ((line = in.readLine()) != null) {
					if (!this.counting || line.contains(" lua] ")) {
						continue;
					}
					int quote = line.indexOf("] \"");
					if (quote < 0) {
						continue;
					}
					int end = line.indexOf('"', quote + 3);
					String command = line.substring(quote + 3, (end > 0) ? end : line.length()).toLowerCase();
					if (command.equals("info")) {
						continue;
					}
					this.topLevel.incrementAndGet();
					synchronized (this) {
						this.byCommand.merge(command, 1L, Long::sum);
					}
				}
			}
			catch (IOException ex) {
				// closed
			}
		}

		@Override
		public void close() {
			try {
				this.socket.close();
			}
			catch (IOException ex) {
				// ignore
			}
		}

	}

}
