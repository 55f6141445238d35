package io.redeq.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A database server (or message broker) for tests as a child process of this JVM: its own
 * data directory in a temp dir, a free port on 127.0.0.1, never the machine's own server.
 * The port and the data are kept across {@link #stop()} and {@link #start()} (a test can
 * take the database away and bring it back); {@link #close()} deletes them. A shutdown
 * hook kills a server a test forgot to close.
 */
public abstract class LocalDatabaseProcess implements AutoCloseable {

	static final String HOST = "127.0.0.1";

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

	private final String name;

	private volatile Path dir;

	private volatile Process process;

	private int port;

	private int launches;

	LocalDatabaseProcess(String name) {
		this.name = name;
		Runtime.getRuntime().addShutdownHook(new Thread(this::destroyOnShutdown, "redeq-" + name + "-reaper"));
	}

	/** Creates the data directory's contents (initdb and the like) once. */
	abstract void initialize(Path dataDir, int port);

	/** The command that runs the server in the foreground. */
	abstract List<String> serverCommand(Path dataDir, int port);

	/** A line the server logs once it accepts connections. */
	abstract String readyLine();

	/**
	 * Ends the server quickly but cleanly (no waiting for clients to disconnect); the
	 * server process must exit on its own afterwards.
	 */
	abstract void requestFastShutdown(Process process);

	/** Environment variables the server command runs with, beside this JVM's. */
	Map<String, String> environment(Path dataDir, int port) {
		return Map.of();
	}

	/**
	 * Ends whatever else this server started (a helper process), once the server is
	 * stopped for good.
	 */
	void released() {
	}

	/**
	 * Starts the server, or starts it again on the same port and data after
	 * {@link #stop()}, and returns once it accepts connections.
	 * @return this server
	 */
	synchronized LocalDatabaseProcess startProcess() {
		if (isRunning()) {
			return this;
		}
		if (this.dir == null) {
			this.dir = createTempDir();
			this.port = TcpPorts.freePort();
			initialize(this.dir.resolve("data"), this.port);
		}
		launch();
		return this;
	}

	private void launch() {
		List<String> command = serverCommand(this.dir.resolve("data"), this.port);
		Path log = this.dir.resolve("server-" + (++this.launches) + ".log");
		try {
			ProcessBuilder builder = new ProcessBuilder(command).directory(this.dir.toFile())
				.redirectErrorStream(true)
				.redirectOutput(log.toFile());
			builder.environment().putAll(environment(this.dir.resolve("data"), this.port));
			this.process = builder.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + command, ex);
		}
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		while (!(read(log).contains(readyLine()) && TcpPorts.isOpen(HOST, this.port))) {
			if (!this.process.isAlive() || System.nanoTime() > deadline) {
				this.process.destroyForcibly();
				throw new IllegalStateException(this.name + " did not start on port " + this.port + " within "
						+ STARTUP_TIMEOUT + "\nCommand: " + String.join(" ", command) + "\nOutput:\n" + read(log));
			}
			pause();
		}
	}

	/** Stops the server and waits for it to exit; keeps its port and data. */
	public synchronized void stop() {
		Process current = this.process;
		if (current == null || !current.isAlive()) {
			return;
		}
		requestFastShutdown(current);
		if (!waitFor(current, STOP_TIMEOUT)) {
			current.destroyForcibly();
			waitFor(current, STOP_TIMEOUT);
		}
	}

	/** Stops the server and deletes its data. */
	@Override
	public synchronized void close() {
		stop();
		released();
		deleteDir();
	}

	/**
	 * Whether the server process runs.
	 * @return true between a start and a stop
	 */
	public boolean isRunning() {
		Process current = this.process;
		return current != null && current.isAlive();
	}

	/**
	 * The server's port.
	 * @return the port on 127.0.0.1 the server listens on, once started
	 */
	public synchronized int port() {
		return this.port;
	}

	/**
	 * The server's log.
	 * @return the server's output of its latest start
	 */
	public synchronized String log() {
		return (this.dir != null) ? read(this.dir.resolve("server-" + this.launches + ".log")) : "";
	}

	private void destroyOnShutdown() {
		Process current = this.process;
		if (current != null && current.isAlive()) {
			current.destroyForcibly();
			waitFor(current, Duration.ofSeconds(5));
		}
		released();
		deleteDir();
	}

	/** Runs a setup command to its end, failing with its output when it fails. */
	static void run(List<String> command, Path workDir) {
		try {
			Process process = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).start();
			byte[] output = process.getInputStream().readAllBytes();
			if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
				process.destroyForcibly();
				throw new IllegalStateException("Setup command failed: " + String.join(" ", command) + "\nOutput:\n"
						+ new String(output, StandardCharsets.UTF_8));
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

	/** Sends a signal by PID (never by name: other servers on the machine stay alone). */
	static void signal(Process process, String signal) {
		run(List.of("kill", "-" + signal, Long.toString(process.pid())), Path.of("."));
	}

	static boolean runningAsRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

	/**
	 * Hands a directory tree to an OS user, so that a server that refuses to run as root
	 * (PostgreSQL) can write it.
	 */
	static void chown(Path root, String user) {
		try {
			UserPrincipalLookupService lookup = root.getFileSystem().getUserPrincipalLookupService();
			UserPrincipal owner = lookup.lookupPrincipalByName(user);
			GroupPrincipal group = lookup.lookupPrincipalByGroupName(user);
			try (Stream<Path> files = Files.walk(root)) {
				for (Path path : files.toList()) {
					PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class);
					view.setOwner(owner);
					view.setGroup(group);
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not hand " + root + " to user " + user, ex);
		}
	}

	static List<String> command(String... parts) {
		return new ArrayList<>(List.of(parts));
	}

	private void deleteDir() {
		Path current = this.dir;
		if (current == null || !Files.exists(current)) {
			return;
		}
		try (Stream<Path> files = Files.walk(current)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException | UncheckedIOException ex) {
			// Best effort: a temp dir whose deletion fails must not fail a test.
		}
	}

	private Path createTempDir() {
		try {
			return Files.createTempDirectory("redeq-" + this.name + "-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a temp dir for " + this.name, ex);
		}
	}

	private static String read(Path file) {
		try {
			return Files.exists(file) ? Files.readString(file, StandardCharsets.ISO_8859_1) : "";
		}
		catch (IOException ex) {
			return "(could not read " + file + ": " + ex.getMessage() + ")";
		}
	}

	private static boolean waitFor(Process process, Duration timeout) {
		try {
			return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return !process.isAlive();
		}
	}

	private static void pause() {
		try {
			Thread.sleep(50); // a short, bounded poll while the server starts
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for a database server to start", ex);
		}
	}

}
