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
 * A real Redis Cluster for tests: by default 3 masters and 3 replicas, each a local
 * {@code redis-server
 * --cluster-enabled yes} process ({@link RedisServer}) on free loopback ports, joined
 * with {@code redis-cli --cluster create --cluster-replicas 1}. {@link #withMasters(int)}
 * and {@link #withReplicasPerMaster(int)} change the shape; fewer than 3 masters, which
 * {@code redis-cli --cluster create} refuses, are joined by hand (ADDSLOTSRANGE, MEET).
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
 * <p>
 * Slots can be moved while clients work: {@link #openSlotMigration(int, RedisServer)}
 * leaves a slot half moved (MIGRATING on its owner, IMPORTING on the target) for as long
 * as a test wants, and {@link #reshard(RedisServer, RedisServer, int)} runs
 * {@code redis-cli --cluster reshard}.
 *
 * <p>
 * Needs Redis 7 or newer ({@code --cluster-port} gives each node a free bus port, instead
 * of the default port+10000, which can fall outside the port range or be taken) and
 * {@code redis-cli}; there is no Docker fallback for a cluster.
 *
 * <p>
 * One class because starting, failing over, healing and half-moving slots of a real
 * cluster are each a few {@code redis-cli} steps that tests call by name; together they
 * are the cluster fixture.
 */
public final class RedisCluster implements AutoCloseable {

	private static final int SLOTS = 16384;

	private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(60);

	private static final Duration RESHARD_TIMEOUT = Duration.ofSeconds(90);

	private static final int RESHARD_ATTEMPTS = 5;

	private final List<RedisServer> nodes = new ArrayList<>();

	/** Each node's cluster bus port, in start order. */
	private final List<Integer> busPorts = new ArrayList<>();

	private Duration nodeTimeout = Duration.ofSeconds(2);

	private int masters = 3;

	private int replicasPerMaster = 1;

	/**
	 * Sets how many masters share the 16384 slots (3 by default), in contiguous equal
	 * ranges. Call before {@link #start()}.
	 */
	public synchronized RedisCluster withMasters(int masters) {
		if (masters < 1) {
			throw new IllegalArgumentException("A cluster needs at least one master, not " + masters);
		}
		this.masters = masters;
		return this;
	}

	/**
	 * Sets how many replicas each master gets (1 by default; 0 for a cluster of masters
	 * only). Call before {@link #start()}.
	 */
	public synchronized RedisCluster withReplicasPerMaster(int replicas) {
		if (replicas < 0) {
			throw new IllegalArgumentException("Replicas per master cannot be negative: " + replicas);
		}
		this.replicasPerMaster = replicas;
		return this;
	}

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
	 * Starts the nodes, creates the cluster, and returns once every node reports
	 * {@code cluster_state:ok} and all of them agree on who serves which slots.
	 * @throws RedisNotAvailableException if redis-server or redis-cli is missing
	 */
	public synchronized RedisCluster start() {
		if (!this.nodes.isEmpty()) {
			throw new IllegalStateException("RedisCluster already started");
		}
		Path cli = RedisBinaries.requireRedisCli();
		try {
			int count = this.masters * (1 + this.replicasPerMaster);
			for (int i = 0; i < count; i++) {
				int busPort = TcpPorts.freePort();
				this.busPorts.add(busPort);
				this.nodes.add(RedisServer.localProcess()
					.withArgs("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-port",
							String.valueOf(busPort), "--cluster-node-timeout",
							String.valueOf(this.nodeTimeout.toMillis()))
					.start());
			}
			if (this.masters >= 3) {
				createCluster(cli);
			}
			else {
				joinByHand();
			}
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
		this.busPorts.clear();
	}

	/** All nodes, running or not, in start order. */
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

	/**
	 * Waits until the nodes agree and keep agreeing for a second. Right after a reshard
	 * the masters may still resolve a config epoch collision, which can hand a slot back;
	 * the next reshard must not start on a view that is about to change.
	 */
	private void awaitSettled() {
		long deadline = System.nanoTime() + FORMATION_TIMEOUT.toNanos();
		int agreeing = 0;
		while (agreeing < 10) {
			if (healthProblem() == null) {
				agreeing++;
			}
			else {
				agreeing = 0;
				if (System.nanoTime() > deadline) {
					awaitHealthy(Duration.ZERO);
				}
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
		command.addAll(List.of("--cluster-replicas", String.valueOf(this.replicasPerMaster), "--cluster-yes"));
		runCli(command, FORMATION_TIMEOUT);
	}

	/**
	 * Joins the nodes without {@code redis-cli --cluster create}, which wants at least 3
	 * masters: each master adds its equal share of the slots and a distinct config epoch,
	 * every node meets the first, then each replica follows its master.
	 */
	private void joinByHand() {
		for (int i = 0; i < this.masters; i++) {
			RedisServer master = this.nodes.get(i);
			int from = (int) ((long) i * SLOTS / this.masters);
			int to = (int) ((long) (i + 1) * SLOTS / this.masters) - 1;
			master.call("CLUSTER", "ADDSLOTSRANGE", String.valueOf(from), String.valueOf(to));
			master.call("CLUSTER", "SET-CONFIG-EPOCH", String.valueOf(i + 1));
		}
		RedisServer first = this.nodes.get(0);
		for (int i = 1; i < this.nodes.size(); i++) {
			this.nodes.get(i)
				.call("CLUSTER", "MEET", first.host(), String.valueOf(first.port()),
						String.valueOf(this.busPorts.get(0)));
		}
		for (int i = this.masters; i < this.nodes.size(); i++) {
			RedisServer replica = this.nodes.get(i);
			String masterId = nodeId(this.nodes.get(i % this.masters));
			awaitCondition(() -> replica.call("CLUSTER", "NODES").contains(masterId),
					replica + " to learn of its master " + masterId, FORMATION_TIMEOUT);
			replica.call("CLUSTER", "REPLICATE", masterId);
		}
	}

	// ---- moving slots -----------------------------------------------------------------

	/** A node's cluster id ({@code CLUSTER MYID}). */
	public String nodeId(RedisServer node) {
		return node.call("CLUSTER", "MYID");
	}

	/**
	 * The master that serves {@code slot}, as the first running node sees it (during an
	 * open migration: still the source).
	 */
	public synchronized RedisServer masterOf(int slot) {
		RedisServer anyRunning = this.nodes.stream()
			.filter(RedisServer::isRunning)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No cluster node is running"));
		return node(ClusterNodes.parse(anyRunning.call("CLUSTER", "NODES")).ownerPort(slot));
	}

	/**
	 * Starts moving {@code slot} from its master to {@code target} the way
	 * {@code redis-cli --cluster reshard} does, and stops there: the target is set
	 * IMPORTING, the owner MIGRATING, and no key is moved yet. The returned migration
	 * moves keys one by one and finishes the move when the test says so.
	 */
	public SlotMigration openSlotMigration(int slot, RedisServer target) {
		RedisServer source = masterOf(slot);
		if (source.port() == target.port()) {
			throw new IllegalArgumentException("Slot " + slot + " is already served by " + target);
		}
		target.call("CLUSTER", "SETSLOT", String.valueOf(slot), "IMPORTING", nodeId(source));
		source.call("CLUSTER", "SETSLOT", String.valueOf(slot), "MIGRATING", nodeId(target));
		return new SlotMigration(this, slot, source, target);
	}

	/**
	 * Runs {@code redis-cli --cluster reshard} to move {@code slots} slots (the lowest
	 * the source serves, as redis-cli picks them) from one master to another, with its
	 * keys moved {@code pipeline} at a time, and returns once it exited and the nodes
	 * agree again. Clients may keep working meanwhile: that is the point.
	 * @return what redis-cli printed
	 * @throws IllegalStateException if redis-cli fails or takes longer than 90 s; the
	 * message holds its output
	 */
	public String reshard(RedisServer from, RedisServer to, int slots, int pipeline) {
		Path cli = RedisBinaries.requireRedisCli();
		List<String> command = List.of(cli.toString(), "--cluster", "reshard", from.host() + ":" + from.port(),
				"--cluster-from", nodeId(from), "--cluster-to", nodeId(to), "--cluster-slots", String.valueOf(slots),
				"--cluster-pipeline", String.valueOf(pipeline), "--cluster-yes");
		for (int attempt = 1;; attempt++) {
			try {
				String output = runCli(command, RESHARD_TIMEOUT);
				awaitSettled();
				return output;
			}
			catch (IllegalStateException ex) {
				// redis-cli checks the cluster before it moves anything, and refuses
				// while a node has not yet heard of the last move: nothing changed, so
				// wait for the gossip and ask again.
				boolean refusedBeforeMoving = ex.getMessage() != null
						&& ex.getMessage().contains("Please fix your cluster problems before resharding");
				if (!refusedBeforeMoving || attempt >= RESHARD_ATTEMPTS) {
					throw ex;
				}
				awaitHealthy(FORMATION_TIMEOUT);
				for (int i = 0; i < 10; i++) {
					pause();
				}
			}
		}
	}

	/**
	 * Runs {@code redis-cli --cluster fix} against the first running master, as an
	 * operator does after a reshard was left half done, and waits until the nodes agree.
	 * @return what redis-cli printed
	 */
	public String fix() {
		if (settleContestedSlots()) {
			return "settled contested slots";
		}
		RedisServer any = masters().get(0);
		String output = runCli(List.of(RedisBinaries.requireRedisCli().toString(), "--cluster", "fix",
				any.host() + ":" + any.port(), "--cluster-yes"), RESHARD_TIMEOUT);
		awaitHealthy(FORMATION_TIMEOUT);
		return output;
	}

	/**
	 * Settles slots whose owner the masters disagree on, the way an operator does by
	 * hand: seen after a reshard round under load, when each of two masters believes the
	 * other owns a slot and no gossip ever corrects it. The slot goes to the one master
	 * that holds keys in it (to the owner the first master sees when none does) with
	 * {@code CLUSTER SETSLOT ... NODE} on every master, and that master bumps its epoch
	 * so its claim wins. Keys are never moved or dropped: with keys on two masters it
	 * gives up.
	 * @return whether the nodes agree again
	 */
	public boolean settleContestedSlots() {
		List<RedisServer> masters = masters();
		List<ClusterNodes> views = masters.stream()
			.map((master) -> ClusterNodes.parse(master.call("CLUSTER", "NODES")))
			.collect(Collectors.toList());
		for (int slot = 0; slot < SLOTS; slot++) {
			Integer first = null;
			boolean contested = false;
			for (ClusterNodes view : views) {
				Integer owner;
				try {
					owner = view.ownerPort(slot);
				}
				catch (IllegalStateException ex) {
					owner = null;
				}
				if (owner == null || (first != null && !first.equals(owner))) {
					contested = true;
				}
				if (first == null) {
					first = owner;
				}
			}
			if (contested) {
				settle(slot, masters, first);
			}
		}
		try {
			awaitHealthy(Duration.ofSeconds(20));
			return true;
		}
		catch (IllegalStateException ex) {
			return false;
		}
	}

	private void settle(int slot, List<RedisServer> masters, Integer seenOwner) {
		List<RedisServer> holders = masters.stream()
			.filter((master) -> !"0".equals(master.call("CLUSTER", "COUNTKEYSINSLOT", String.valueOf(slot))))
			.collect(Collectors.toList());
		if (holders.size() > 1) {
			throw new IllegalStateException("Slot " + slot + " has keys on " + holders + ": not settling it by hand");
		}
		RedisServer owner = !holders.isEmpty() ? holders.get(0)
				: masters.stream()
					.filter((master) -> Integer.valueOf(master.port()).equals(seenOwner))
					.findFirst()
					.orElse(masters.get(0));
		String ownerId = nodeId(owner);
		for (RedisServer master : masters) {
			master.call("CLUSTER", "SETSLOT", String.valueOf(slot), "NODE", ownerId);
		}
		owner.call("CLUSTER", "BUMPEPOCH");
	}

	/**
	 * {@link #reshard(RedisServer, RedisServer, int, int)} with redis-cli's pipeline of
	 * 10.
	 */
	public String reshard(RedisServer from, RedisServer to, int slots) {
		return reshard(from, to, slots, 10);
	}

	/**
	 * Who serves {@code slot} in each running node's own view, e.g.
	 * {@code "7001 says 7002, 7002 says 7002"}: what to print when clients are bounced
	 * between nodes with MOVED.
	 */
	public synchronized String slotOwnerViews(int slot) {
		return this.nodes.stream()
			.filter(RedisServer::isRunning)
			.map((node) -> node.port() + " says " + ClusterNodes.parse(node.call("CLUSTER", "NODES")).ownerPort(slot)
					+ (ClusterNodes.parse(node.call("CLUSTER", "NODES")).isOpen(slot) ? " (open)" : ""))
			.collect(Collectors.joining(", "));
	}

	/**
	 * The slots {@code node} serves, lowest first, as it sees itself.
	 */
	public List<Integer> slotsOf(RedisServer node) {
		List<Integer> slots = new ArrayList<>();
		for (int slot = 0; slot < SLOTS; slot++) {
			slots.add(slot);
		}
		ClusterNodes view = ClusterNodes.parse(node.call("CLUSTER", "NODES"));
		return slots.stream().filter((slot) -> view.ownerPort(slot) == node.port()).collect(Collectors.toList());
	}

	/**
	 * Ends redis-cli's input at once. Some of its questions ignore --cluster-yes (the fix
	 * of a slot no node covers, which it would give to a random node, orphaning the keys
	 * of a node that does hold the slot but whose news has not spread yet): at the end of
	 * input it declines them instead of waiting forever.
	 */
	private static void declineQuestions(Process process) {
		try {
			process.getOutputStream().close();
		}
		catch (IOException ex) {
			// redis-cli has ended already: nothing to decline.
		}
	}

	private static String runCli(List<String> command, Duration timeout) {
		try {
			Path output = Files.createTempFile("redeq-cluster-cli-", ".log");
			try {
				Process process = new ProcessBuilder(command).redirectErrorStream(true)
					.redirectOutput(output.toFile())
					.start();
				declineQuestions(process);
				// Bounded: redis-cli waits forever if the nodes cannot reach each other.
				boolean exited = process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS);
				if (!exited) {
					process.destroyForcibly().waitFor();
				}
				String printed = Files.readString(output, StandardCharsets.UTF_8);
				if (!exited || process.exitValue() != 0) {
					throw new IllegalStateException("'" + String.join(" ", command) + "' failed"
							+ (exited ? " with exit code " + process.exitValue() : " to finish in " + timeout) + ":\n"
							+ printed);
				}
				return printed;
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
			throw new IllegalStateException("Interrupted while running " + command, ex);
		}
	}

	static void awaitCondition(java.util.function.BooleanSupplier condition, String what, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Timed out after " + timeout + " waiting for " + what);
			}
			pause();
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
