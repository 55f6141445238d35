package io.redeq.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.lettuce.core.RedisURI;

/**
 * A real Sentinel setup for tests: a master, one replica and three Sentinels, each a
 * local {@code redis-server} process on a free loopback port, watching the master under
 * the name {@link #MASTER_NAME}. Sentinels declare the master down after 1 s and fail it
 * over with a quorum of 2.
 *
 * <pre>{@code
 * try (RedisSentinel sentinel = new RedisSentinel().start()) {
 *     RedisClient client = RedisClient.create(sentinel.uri());   // through Sentinel
 *     sentinel.master().kill();
 *     sentinel.awaitFailover(oldMasterPort, Duration.ofSeconds(30));
 * }
 * }</pre>
 */
public final class RedisSentinel implements AutoCloseable {

	/** The name under which the Sentinels watch the master. */
	public static final String MASTER_NAME = "redeq-master";

	/** Lines of each process's log that {@link #describe()} shows. */
	private static final int LOG_LINES = 30;

	/** Redis's default; Sentinel promotes the replica with the lowest non-zero one. */
	private static final String DEFAULT_REPLICA_PRIORITY = "100";

	private static final Pattern MASTER_ADDRESS = Pattern.compile("name=" + Pattern.quote(MASTER_NAME)
			+ ",status=(\\w+),address=([^:,]+):(\\d+),slaves=(\\d+),sentinels=(\\d+)");

	private final List<RedisServer> servers = new ArrayList<>();

	private final List<RedisServer> sentinels = new ArrayList<>();

	private Path configDir;

	/**
	 * Starts the master, its replica and three Sentinels, and returns once every Sentinel
	 * sees the master with its replica and the two other Sentinels.
	 */
	public synchronized RedisSentinel start() {
		if (!this.servers.isEmpty()) {
			throw new IllegalStateException("RedisSentinel already started");
		}
		try {
			RedisServer master = RedisServer.localProcess().start();
			this.servers.add(master);
			this.servers.add(RedisServer.localProcess()
				.withArgs("--replicaof", master.host(), String.valueOf(master.port()))
				.start());
			this.configDir = Files.createTempDirectory("redeq-sentinel-");
			for (int i = 0; i < 3; i++) {
				Path config = this.configDir.resolve("sentinel-" + i + ".conf");
				Files.writeString(config,
						"sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 2\n"
								+ "sentinel down-after-milliseconds " + MASTER_NAME + " 1000\n"
								+ "sentinel failover-timeout " + MASTER_NAME + " 5000\n" + "sentinel parallel-syncs "
								+ MASTER_NAME + " 1\n",
						StandardCharsets.UTF_8);
				this.sentinels.add(RedisServer.sentinel(config).start());
			}
			awaitState(master.port(), Duration.ofSeconds(30));
			return this;
		}
		catch (IOException ex) {
			close();
			throw new UncheckedIOException("Could not write the Sentinel configuration", ex);
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
	}

	/** A Lettuce URI that finds the master through the three Sentinels. */
	public synchronized RedisURI uri() {
		RedisURI.Builder builder = null;
		for (RedisServer sentinel : this.sentinels) {
			builder = (builder != null) ? builder.withSentinel(sentinel.host(), sentinel.port())
					: RedisURI.Builder.sentinel(sentinel.host(), sentinel.port(), MASTER_NAME);
		}
		if (builder == null) {
			throw new IllegalStateException("RedisSentinel has not been started");
		}
		return builder.build();
	}

	/**
	 * The master and the replica, running or not, in start order (the first was the first
	 * master).
	 */
	public synchronized List<RedisServer> servers() {
		return List.copyOf(this.servers);
	}

	/** The three Sentinel processes. */
	public synchronized List<RedisServer> sentinels() {
		return List.copyOf(this.sentinels);
	}

	/** The server the Sentinels currently name as master. */
	public synchronized RedisServer master() {
		int port = masterPort().orElseThrow(() -> new IllegalStateException("No Sentinel names a master"));
		return this.servers.stream()
			.filter((server) -> server.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("Sentinels name an unknown master on port " + port));
	}

	/**
	 * Starts a killed master again as a replica of the master the Sentinels now name, as
	 * Sentinel makes it on its own once it notices the server back, and returns once it
	 * holds that master's data. Sentinel takes up to an INFO period (10 s) and 8 s of
	 * waiting for that, and 30 s more in TILT mode, which it enters when its timer stalls
	 * for 2 s on a loaded machine; a test that needs the replica back (WAIT) should not
	 * wait on that.
	 * <p>
	 * Until its first synchronisation is done the server is empty, and Sentinel would
	 * still promote it if the new master stalled for longer than
	 * {@code down-after-milliseconds} (1 s here; a loaded machine does that): the master
	 * holding every job would then become its replica and be emptied by the full resync.
	 * So the server runs with {@code replica-priority 0}, which Sentinel never promotes,
	 * until its link to the master is up, as an operator restarting a server without
	 * persistence should do.
	 * @param server one of {@link #servers()}, not running
	 * @throws IllegalStateException if the first synchronisation is not done within
	 * {@code syncTimeout}
	 */
	public void restartAsReplica(RedisServer server, Duration syncTimeout) {
		server.start();
		server.call("CONFIG", "SET", "replica-priority", "0");
		RedisServer master = master();
		server.call("REPLICAOF", master.host(), String.valueOf(master.port()));
		try {
			await("Synchronisation of restarted server " + server.port() + " with " + master.port(), syncTimeout,
					() -> linkUp(server) ? null : "its link to the master is not up");
		}
		catch (IllegalStateException ex) {
			throw new IllegalStateException(ex.getMessage() + describe(), ex);
		}
		server.call("CONFIG", "SET", "replica-priority", DEFAULT_REPLICA_PRIORITY);
	}

	/**
	 * What each server holds (role, master, link, keys) and last logged, and what each
	 * Sentinel last logged, for a failing test to say where its jobs went: a server
	 * emptied by a resynchronisation shows here. Never throws: a server that cannot be
	 * asked says so.
	 */
	public String describe() {
		StringBuilder out = new StringBuilder();
		for (RedisServer server : servers()) {
			out.append("\n  server ").append(server.port()).append(": ");
			try {
				if (server.isRunning()) {
					String replication = server.call("INFO", "replication");
					out.append(lineOf(replication, "role:"))
						.append(' ')
						.append(lineOf(replication, "master_port:"))
						.append(' ')
						.append(lineOf(replication, "master_link_status:"))
						.append(' ')
						.append(lineOf(server.call("INFO", "keyspace"), "db0:"));
				}
				else {
					out.append("not running");
				}
			}
			catch (RuntimeException ex) {
				out.append("cannot be asked: ").append(ex.getMessage());
			}
			out.append(lastLines(server.log()));
		}
		for (RedisServer node : sentinels()) {
			out.append("\n  sentinel ").append(node.port()).append(':').append(lastLines(node.log()));
		}
		return out.toString();
	}

	private static String lineOf(String info, String prefix) {
		return info.lines().filter((line) -> line.startsWith(prefix)).findFirst().orElse(prefix + "-");
	}

	private static String lastLines(String log) {
		List<String> lines = log.lines().toList();
		return lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size())
			.stream()
			.map((line) -> "\n    " + line)
			.collect(Collectors.joining());
	}

	/** Asks Sentinel to fail the master over now, without waiting for it to be down. */
	public void failover() {
		this.sentinels.get(0).call("SENTINEL", "FAILOVER", MASTER_NAME);
	}

	/**
	 * Waits until every running Sentinel names a master other than {@code oldMasterPort},
	 * and that master answers as a master.
	 */
	public void awaitFailover(int oldMasterPort, Duration timeout) {
		await("Sentinel failover", timeout, () -> failoverProblem(oldMasterPort));
	}

	private String failoverProblem(int oldMasterPort) {
		Integer agreed = null;
		for (RedisServer sentinel : sentinels()) {
			if (!sentinel.isRunning()) {
				continue;
			}
			Matcher m;
			try {
				m = MASTER_ADDRESS.matcher(sentinel.call("INFO", "sentinel"));
			}
			catch (UncheckedIOException ex) {
				return ex.getMessage();
			}
			if (!m.find()) {
				return sentinel + " does not watch " + MASTER_NAME;
			}
			int port = Integer.parseInt(m.group(3));
			if (port == oldMasterPort || !"ok".equals(m.group(1))) {
				return sentinel + " still names port " + port + " (" + m.group(1) + ")";
			}
			if (agreed != null && agreed != port) {
				return "Sentinels disagree: " + agreed + " versus " + port;
			}
			agreed = port;
		}
		int port = agreed;
		RedisServer master = servers().stream().filter((s) -> s.port() == port).findFirst().orElse(null);
		if (master == null || !master.isRunning() || !master.call("INFO", "replication").contains("role:master")) {
			return "the new master on port " + port + " does not answer as a master yet";
		}
		return null;
	}

	private void awaitState(int masterPort, Duration timeout) {
		await("Sentinel setup", timeout, () -> setupProblem(masterPort));
	}

	private String setupProblem(int masterPort) {
		for (RedisServer sentinel : sentinels()) {
			Matcher m = MASTER_ADDRESS.matcher(sentinel.call("INFO", "sentinel"));
			if (!m.find() || !"ok".equals(m.group(1)) || Integer.parseInt(m.group(3)) != masterPort
					|| !"1".equals(m.group(4)) || !"3".equals(m.group(5))) {
				return sentinel + " does not yet see the master on port " + masterPort
						+ " with 1 replica and 3 sentinels";
			}
		}
		return linkUp(servers().get(1)) ? null : "the replica's link is not up";
	}

	private static boolean linkUp(RedisServer replica) {
		return replica.call("INFO", "replication").contains("master_link_status:up");
	}

	/**
	 * Polls {@code problem} until it answers {@code null} (done), or fails with its last
	 * answer once {@code timeout} has passed.
	 */
	private static void await(String what, Duration timeout, Supplier<String> problem) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			String last = problem.get();
			if (last == null) {
				return;
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(what + " not done after " + timeout + ": " + last);
			}
			pause();
		}
	}

	private Optional<Integer> masterPort() {
		for (RedisServer sentinel : sentinels()) {
			if (sentinel.isRunning()) {
				Matcher m = MASTER_ADDRESS.matcher(sentinel.call("INFO", "sentinel"));
				if (m.find()) {
					return Optional.of(Integer.parseInt(m.group(3)));
				}
			}
		}
		return Optional.empty();
	}

	@Override
	public synchronized void close() {
		this.sentinels.forEach(RedisServer::close);
		this.servers.forEach(RedisServer::close);
		this.sentinels.clear();
		this.servers.clear();
		if (this.configDir != null) {
			try (var files = Files.walk(this.configDir)) {
				files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
			catch (IOException | UncheckedIOException ex) {
				// a temp dir; a failed delete must not fail a test
			}
			this.configDir = null;
		}
	}

	private static void pause() {
		try {
			Thread.sleep(100); // a short, bounded poll while the Sentinels gossip
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for Sentinel", ex);
		}
	}

	@Override
	public synchronized String toString() {
		return "RedisSentinel[servers=" + this.servers + ", sentinels=" + this.sentinels + "]";
	}

}
