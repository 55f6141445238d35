package io.redeq.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.lettuce.core.RedisURI;

/**
 * A real Redis Cluster for tests: 3 masters and 3 replicas, each a local
 * {@code redis-server
 * --cluster-enabled yes} process ({@link RedisServer}) on free loopback ports, joined
 * with {@code redis-cli --cluster create --cluster-replicas 1}.
 *
 * <pre>{@code
 * try (RedisCluster cluster = new RedisCluster().start()) {
 *     RedisClusterClient client = RedisClusterClient.create(cluster.seedUris());
 *     ...
 *     cluster.node(masterPort).kill();   // fail a master over
 *     cluster.awaitHealthy(Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * <p>
 * Needs Redis 7 or newer ({@code --cluster-port} gives each node a free bus port, instead
 * of the default port+10000, which can fall outside the port range or be taken) and
 * {@code redis-cli}; there is no Docker fallback for a cluster.
 */
public final class RedisCluster implements AutoCloseable {

	private static final int NODES = 6;

	private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(60);

	private final List<RedisServer> nodes = new ArrayList<>();

	private Duration nodeTimeout = Duration.ofSeconds(2);

	/**
	 * Sets {@code cluster-node-timeout}: how long a master may be unreachable before its
	 * replica takes over. Short by default (2s) so failover tests run fast. Call before
	 * {@link #start()}.
	 */
	public synchronized RedisCluster withNodeTimeout(Duration timeout) {
		this.nodeTimeout = timeout;
		return this;
	}

	/**
	 * Starts six nodes, creates the cluster, and returns once every node reports
	 * {@code cluster_state:ok} and all of them agree on who serves which slots.
	 * @throws RedisNotAvailableException if redis-server or redis-cli is missing
	 */
	public synchronized RedisCluster start() {
		if (!this.nodes.isEmpty()) {
			throw new IllegalStateException("RedisCluster already started");
		}
		Path cli = RedisBinaries.requireRedisCli();
		try {
			for (int i = 0; i < NODES; i++) {
				this.nodes.add(RedisServer.localProcess()
					.withArgs("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-port",
							String.valueOf(TcpPorts.freePort()), "--cluster-node-timeout",
							String.valueOf(this.nodeTimeout.toMillis()))
					.start());
			}
			createCluster(cli);
			awaitHealthy(FORMATION_TIMEOUT);
			return this;
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
	}

	/** Kills all nodes and deletes their files; the same as {@link #close()}. */
	public void stop() {
		close();
	}

	@Override
	public synchronized void close() {
		this.nodes.forEach(RedisServer::close);
		this.nodes.clear();
	}

	/** All six nodes, running or not, in start order. */
	public synchronized List<RedisServer> nodes() {
		return List.copyOf(this.nodes);
	}

	/** A URI for every node, to seed a Lettuce {@code RedisClusterClient}. */
	public synchronized List<RedisURI> seedUris() {
		return this.nodes.stream().map(RedisServer::uri).collect(Collectors.toList());
	}

	/** The node process listening on {@code port}, e.g. to stop or kill a master. */
	public synchronized RedisServer node(int port) {
		return this.nodes.stream()
			.filter((node) -> node.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("No cluster node on port " + port));
	}

	/** The running nodes that the cluster currently sees as masters. */
	public synchronized List<RedisServer> masters() {
		return withRole("master");
	}

	/** The running nodes that the cluster currently sees as replicas. */
	public synchronized List<RedisServer> replicas() {
		return withRole("slave");
	}

	/**
	 * Waits until every running node reports {@code cluster_state:ok} with all 16384
	 * slots served, all running nodes see the same masters, replicas and slot ranges, and
	 * every running replica is in sync with its master. Use it after a failover or a
	 * restart.
	 * @throws IllegalStateException with each node's view if that does not happen in time
	 */
	public void awaitHealthy(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		String problem;
		while ((problem = healthProblem()) != null) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Redis Cluster not healthy after " + timeout + ": " + problem);
			}
			pause();
		}
	}

	/** Why the cluster is not healthy yet, or {@code null} if it is. */
	private synchronized String healthProblem() {
		List<RedisServer> running = this.nodes.stream().filter(RedisServer::isRunning).collect(Collectors.toList());
		if (running.isEmpty()) {
			return "no node is running";
		}
		String agreedView = null;
		try {
			for (RedisServer node : running) {
				String info = node.call("CLUSTER", "INFO");
				if (!info.contains("cluster_state:ok") || !info.contains("cluster_slots_ok:16384")) {
					return node + " reports:\n" + info;
				}
				String view = ClusterNodes.parse(node.call("CLUSTER", "NODES")).normalized();
				if (agreedView == null) {
					agreedView = view;
				}
				else if (!agreedView.equals(view)) {
					return "nodes disagree:\n" + agreedView + "\nversus " + node + ":\n" + view;
				}
				String replication = node.call("INFO", "replication");
				if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
					return node + " is a replica whose link to its master is not up";
				}
			}
		}
		catch (UncheckedIOException ex) {
			return ex.getMessage();
		}
		return null;
	}

	private List<RedisServer> withRole(String role) {
		Map<Integer, RedisServer> byPort = this.nodes.stream()
			.filter(RedisServer::isRunning)
			.collect(Collectors.toMap(RedisServer::port, Function.identity()));
		RedisServer anyRunning = byPort.values()
			.stream()
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No cluster node is running"));
		return ClusterNodes.parse(anyRunning.call("CLUSTER", "NODES"))
			.ports(role)
			.stream()
			.map(byPort::get)
			.filter((node) -> node != null)
			.collect(Collectors.toList());
	}

	private void createCluster(Path cli) {
		List<String> command = new ArrayList<>(List.of(cli.toString(), "--cluster", "create"));
		this.nodes.forEach((node) -> command.add(node.host() + ":" + node.port()));
		command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
		try {
			Path output = Files.createTempFile("redeq-cluster-create-", ".log");
			try {
				Process process = new ProcessBuilder(command).redirectErrorStream(true)
					.redirectOutput(output.toFile())
					.start();
				// Bounded: redis-cli waits for the join forever if the nodes cannot reach
				// each other.
				boolean exited = process.waitFor(FORMATION_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
				if (!exited) {
					process.destroyForcibly().waitFor();
				}
				if (!exited || process.exitValue() != 0) {
					throw new IllegalStateException("'" + String.join(" ", command) + "' failed"
							+ (exited ? " with exit code " + process.exitValue() : " to finish in " + FORMATION_TIMEOUT)
							+ ":\n" + Files.readString(output, StandardCharsets.UTF_8));
				}
			}
			finally {
				Files.deleteIfExists(output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + command, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while creating the cluster", ex);
		}
	}

	private static void pause() {
		try {
			Thread.sleep(100); // a short, bounded poll while the nodes gossip
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for the cluster", ex);
		}
	}

	@Override
	public synchronized String toString() {
		return "RedisCluster" + this.nodes.stream().map((node) -> node.port()).collect(Collectors.toList());
	}

}
