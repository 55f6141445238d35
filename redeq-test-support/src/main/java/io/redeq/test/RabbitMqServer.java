package io.redeq.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real RabbitMQ node for tests: {@code rabbitmq-server} as a child process of this JVM
 * with its AMQP listener on a free port of 127.0.0.1 (never the machine's own 5672), its
 * node name {@code redeq-test-<port>@localhost}, its database, logs, configuration,
 * Erlang cookie and plugin list (empty: no management plugin) in a temp dir.
 *
 * <pre>{@code
 * try (RabbitMqServer rabbit = new RabbitMqServer().start()) {
 *     connectionFactory.setPort(rabbit.port()); // user guest, password guest
 * }
 * }</pre>
 *
 * <p>
 * Erlang nodes find each other through {@code epmd}. The machine may run its own RabbitMQ
 * with its own {@code epmd} on the default port 4369; this node registers with an
 * {@code epmd} of its own on another free port ({@code ERL_EPMD_PORT}), which this class
 * starts and ends with the node, so nothing of the machine's is used or left running. The
 * node's distribution port is a free port as well. {@link #stop()} sends SIGTERM,
 * RabbitMQ's orderly shutdown, to the node's PID; {@link #start()} brings it back on the
 * same port with its queues and their persistent messages.
 *
 * <p>
 * Programs: {@value #SERVER_ENV} if set, else Debian's
 * {@code /usr/lib/rabbitmq/bin/rabbitmq-server} (not {@code /usr/sbin/rabbitmq-server},
 * which switches to the system's {@code rabbitmq} user and directories), else
 * {@code rabbitmq-server} on the {@code PATH} or in Homebrew's {@code sbin}; {@code epmd}
 * on the {@code PATH}, else where Debian or Homebrew puts it.
 */
public final class RabbitMqServer extends LocalDatabaseProcess {

	/** Environment variable naming the {@code rabbitmq-server} script to run. */
	public static final String SERVER_ENV = "REDEQ_RABBITMQ_SERVER";

	/** The user tests connect as; RabbitMQ lets it in from loopback addresses only. */
	public static final String USER = "guest";

	/** The password of {@value #USER}. */
	public static final String PASSWORD = "guest";

	/** The commands that install the broker. */
	static final String INSTALL = "sudo apt-get install rabbitmq-server (Debian/Ubuntu) or brew install rabbitmq (macOS)";

	private static final String DEBIAN_SERVER = "usr/lib/rabbitmq/bin/rabbitmq-server";

	private static final List<String> SERVER_DIRS = List.of("opt/homebrew/sbin", "usr/local/sbin",
			"opt/homebrew/opt/rabbitmq/sbin", "usr/local/opt/rabbitmq/sbin");

	private static final List<String> EPMD_DIRS = List.of("usr/bin", "usr/lib/erlang/bin", "opt/homebrew/bin",
			"usr/local/bin", "opt/homebrew/opt/erlang/bin", "usr/local/opt/erlang/bin");

	private static final Duration EPMD_STARTUP = Duration.ofSeconds(10);

	private final Path server;

	private final Path epmd;

	private int epmdPort;

	private int distributionPort;

	private volatile Process epmdProcess;

	/** Finds the programs; nothing runs until {@link #start()}. */
	public RabbitMqServer() {
		super("rabbitmq");
		ProgramLocations where = ProgramLocations.system();
		this.server = findServer(where).orElseThrow(() -> new BrokerNotAvailableException(
				"RabbitMQ's rabbitmq-server" + " not found in " + SERVER_ENV + ", /" + DEBIAN_SERVER + ", PATH or "
						+ String.join(", ", SERVER_DIRS) + "; install it: " + INSTALL));
		this.epmd = findEpmd(where).orElseThrow(
				() -> new BrokerNotAvailableException("Erlang's epmd (needed by RabbitMQ) not found on PATH or in "
						+ String.join(", ", EPMD_DIRS) + "; install RabbitMQ with its Erlang runtime: " + INSTALL));
	}

	/**
	 * Starts the node (again, with its queues, after {@link #stop()}) and returns once it
	 * accepts AMQP connections.
	 * @return this server
	 */
	public RabbitMqServer start() {
		startProcess();
		return this;
	}

	/**
	 * Where to connect.
	 * @return the host of the AMQP listener, 127.0.0.1
	 */
	public String host() {
		return HOST;
	}

	static Optional<Path> findServer(ProgramLocations where) {
		String configured = where.env(SERVER_ENV);
		if (configured != null) {
			return Optional.of(Path.of(configured)).filter(ProgramLocations::isProgram);
		}
		Path debian = where.at(DEBIAN_SERVER);
		if (ProgramLocations.isProgram(debian)) {
			return Optional.of(debian);
		}
		return where.find("rabbitmq-server", SERVER_DIRS);
	}

	static Optional<Path> findEpmd(ProgramLocations where) {
		return where.find("epmd", EPMD_DIRS);
	}

	@Override
	void initialize(Path dataDir, int port) {
		try {
			Files.createDirectories(dataDir);
			Path dir = dataDir.getParent();
			Files.writeString(dir.resolve("rabbitmq.conf"), "log.console = true\nlog.console.level = info\n");
			Files.writeString(dir.resolve("enabled_plugins"), "[].\n");
			Files.writeString(dir.resolve("rabbitmq-env.conf"), "");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write the RabbitMQ configuration", ex);
		}
		this.epmdPort = TcpPorts.freePort();
		this.distributionPort = TcpPorts.freePort();
		startEpmd(dataDir.getParent());
	}

	@Override
	List<String> serverCommand(Path dataDir, int port) {
		return command(this.server.toString());
	}

	@Override
	Map<String, String> environment(Path dataDir, int port) {
		Path dir = dataDir.getParent();
		return Map.ofEntries(Map.entry("HOME", dir.toString()),
				// Not the system's /etc/rabbitmq/rabbitmq-env.conf, which may name
				// the system's node.
				Map.entry("RABBITMQ_CONF_ENV_FILE", dir.resolve("rabbitmq-env.conf").toString()),
				Map.entry("RABBITMQ_CONFIG_FILE", dir.resolve("rabbitmq.conf").toString()),
				Map.entry("RABBITMQ_ENABLED_PLUGINS_FILE", dir.resolve("enabled_plugins").toString()),
				Map.entry("RABBITMQ_NODENAME", "redeq-test-" + port + "@localhost"),
				Map.entry("RABBITMQ_NODE_IP_ADDRESS", HOST), Map.entry("RABBITMQ_NODE_PORT", Integer.toString(port)),
				Map.entry("RABBITMQ_DIST_PORT", Integer.toString(this.distributionPort)),
				Map.entry("RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS", "-kernel inet_dist_use_interface {127,0,0,1}"),
				Map.entry("ERL_EPMD_PORT", Integer.toString(this.epmdPort)), Map.entry("ERL_EPMD_ADDRESS", HOST),
				Map.entry("RABBITMQ_MNESIA_BASE", dataDir.toString()),
				Map.entry("RABBITMQ_LOG_BASE", dir.resolve("log").toString()), Map.entry("RABBITMQ_LOGS", "-"),
				// The script then execs the Erlang VM, so the process this JVM holds is
				// the node itself and SIGTERM reaches it.
				Map.entry("RUNNING_UNDER_SYSTEMD", "true"));
	}

	@Override
	String readyLine() {
		return "Server startup complete";
	}

	/** SIGTERM is RabbitMQ's orderly shutdown: it closes connections and syncs queues. */
	@Override
	void requestFastShutdown(Process process) {
		signal(process, "TERM");
	}

	private void startEpmd(Path dir) {
		List<String> command = command(this.epmd.toString(), "-port", Integer.toString(this.epmdPort), "-address",
				HOST);
		try {
			this.epmdProcess = new ProcessBuilder(command).directory(dir.toFile())
				.redirectErrorStream(true)
				.redirectOutput(dir.resolve("epmd.log").toFile())
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + command, ex);
		}
		long deadline = System.nanoTime() + EPMD_STARTUP.toNanos();
		while (!TcpPorts.isOpen(HOST, this.epmdPort)) {
			if (!this.epmdProcess.isAlive() || System.nanoTime() > deadline) {
				this.epmdProcess.destroyForcibly();
				throw new IllegalStateException("epmd did not start on port " + this.epmdPort + " within "
						+ EPMD_STARTUP + ": " + String.join(" ", command));
			}
			try {
				Thread.sleep(20); // a short, bounded poll while epmd starts
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for epmd to start", ex);
			}
		}
	}

	@Override
	void released() {
		Process current = this.epmdProcess;
		if (current != null && current.isAlive()) {
			current.destroy();
			try {
				if (!current.waitFor(5, TimeUnit.SECONDS)) {
					current.destroyForcibly();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				current.destroyForcibly();
			}
		}
	}

}
