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
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One {@code redis-server} child process on a free loopback port, with its own temp
 * directory for data files and its log. The port and the directory are kept across
 * {@link #stop()} and {@link #start()}, so a restarted server finds its AOF/RDB files
 * again.
 */
final class LocalRedisProcess implements RedisBackend {

	static final String HOST = "127.0.0.1";

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

	private final Path binary;

	private final List<String> leadingArgs;

	private final List<String> extraArgs;

	private final Duration startupTimeout;

	// volatile: the shutdown hook reads these without taking the monitor.
	private volatile Path dir;

	private volatile Process process;

	private int port;

	LocalRedisProcess(Path binary, List<String> extraArgs, Duration startupTimeout) {
		this(binary, List.of(), extraArgs, startupTimeout);
	}

	/**
	 * Describes the process; nothing runs before {@link #start()}.
	 * @param leadingArgs arguments that go right after the binary, before the defaults: a
	 * config file and {@code --sentinel} for a Sentinel, which needs a file it can
	 * rewrite
	 */
	LocalRedisProcess(Path binary, List<String> leadingArgs, List<String> extraArgs, Duration startupTimeout) {
		this.binary = binary;
		this.leadingArgs = List.copyOf(leadingArgs);
		this.extraArgs = List.copyOf(extraArgs);
		this.startupTimeout = startupTimeout;
	}

	@Override
	public synchronized void start() {
		if (isRunning()) {
			return;
		}
		boolean firstStart = (this.dir == null);
		if (firstStart) {
			this.dir = createTempDir();
			this.port = TcpPorts.freePort();
			ProcessReaper.track(this);
		}
		try {
			launch();
		}
		catch (PortTakenException ex) {
			// Another process took the port between our probe and redis-server's bind. On
			// a first start any port will do, so try once more; a restart must keep its
			// port, so it fails.
			if (!firstStart) {
				throw new IllegalStateException(ex.getMessage(), ex);
			}
			this.port = TcpPorts.freePort();
			launch();
		}
	}

	private void launch() {
		List<String> command = new ArrayList<>(List.of(this.binary.toString()));
		command.addAll(this.leadingArgs);
		command.addAll(List.of("--daemonize", "no", "--port", String.valueOf(this.port), "--bind", HOST, "--dir",
				this.dir.toString(), "--save", "", "--appendonly", "no", "--protected-mode", "no", "--logfile", ""));
		// Later arguments win in redis-server, so extra args can override
		// the defaults above.
		command.addAll(this.extraArgs);
		Path log = logFile();
		long logOffset = size(log);
		try {
			this.process = new ProcessBuilder(command).directory(this.dir.toFile())
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + command, ex);
		}
		awaitPong(command, logOffset);
	}

	private void awaitPong(List<String> command, long logOffset) {
		long deadline = System.nanoTime() + this.startupTimeout.toNanos();
		while (true) {
			if (!this.process.isAlive()) {
				String output = readLog(logOffset);
				String problem = "redis-server exited with code " + this.process.exitValue() + " on port " + this.port;
				if (output.contains("Address already in use")) {
					throw new PortTakenException(problem, command, output);
				}
				throw new IllegalStateException(describe(problem, command, output));
			}
			if (answersPing()) {
				return;
			}
			if (System.nanoTime() > deadline) {
				destroy(this.process, Duration.ofSeconds(2));
				throw new IllegalStateException(describe(
						"redis-server did not answer PING on port " + this.port + " within " + this.startupTimeout,
						command, readLog(logOffset)));
			}
			pause();
		}
	}

	private boolean answersPing() {
		try {
			return "PONG".equals(RespClient.call(HOST, this.port, PROBE_TIMEOUT, "PING"));
		}
		catch (IOException ex) {
			return false; // not listening yet, or still loading its data (-LOADING)
		}
	}

	@Override
	public synchronized void stop() {
		destroy(this.process, STOP_TIMEOUT);
	}

	@Override
	public synchronized void kill() {
		Process current = this.process;
		if (current != null) {
			current.destroyForcibly();
			waitFor(current, STOP_TIMEOUT);
		}
	}

	@Override
	public synchronized void close() {
		stop();
		deleteDir();
		ProcessReaper.untrack(this);
	}

	/** Called from the JVM shutdown hook: no monitor, no graceful wait. */
	void destroyOnShutdown() {
		Process current = this.process;
		if (current != null) {
			current.destroyForcibly();
			waitFor(current, Duration.ofSeconds(2));
		}
		deleteDir();
	}

	@Override
	public boolean isRunning() {
		Process current = this.process;
		return current != null && current.isAlive();
	}

	@Override
	public String host() {
		return HOST;
	}

	@Override
	public synchronized int port() {
		return this.port;
	}

	@Override
	public String log() {
		return readLog(0);
	}

	/**
	 * SIGTERM first, so redis-server flushes its AOF and exits cleanly; SIGKILL if it
	 * hangs. Goes through the process handle, i.e. by PID, never by name: other
	 * redis-server processes on the machine (its own on 6379, other test JVMs) are never
	 * touched.
	 */
	private static void destroy(Process process, Duration timeout) {
		if (process == null || !process.isAlive()) {
			return;
		}
		ProcessHandle handle = process.toHandle();
		handle.destroy();
		if (!waitFor(process, timeout)) {
			handle.destroyForcibly();
			waitFor(process, timeout);
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

	private void deleteDir() {
		Path current = this.dir;
		if (current == null || !Files.exists(current)) {
			return;
		}
		try (Stream<Path> files = Files.walk(current)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException | UncheckedIOException ex) {
			// Best effort: it is a temp dir, and a failed delete must not fail a test.
		}
	}

	private static Path createTempDir() {
		try {
			return Files.createTempDirectory("redeq-redis-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a temp dir for redis-server", ex);
		}
	}

	private Path logFile() {
		return this.dir.resolve("redis.log");
	}

	private String readLog(long offset) {
		Path log = (this.dir != null) ? logFile() : null;
		if (log == null || !Files.exists(log)) {
			return "";
		}
		try {
			byte[] bytes = Files.readAllBytes(log);
			int from = (int) Math.min(offset, bytes.length);
			return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "(could not read " + log + ": " + ex.getMessage() + ")";
		}
	}

	private static long size(Path file) {
		try {
			return Files.exists(file) ? Files.size(file) : 0;
		}
		catch (IOException ex) {
			return 0;
		}
	}

	private static String describe(String problem, List<String> command, String output) {
		return problem + "\nCommand: " + String.join(" ", command) + "\nServer output:\n"
				+ (output.isBlank() ? "(none)" : output);
	}

	private static void pause() {
		try {
			Thread.sleep(20); // a short, bounded poll while the child process binds its
								// port
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for redis-server to start", ex);
		}
	}

	/**
	 * redis-server could not bind its port; {@link #start()} may retry on another one.
	 */
	private static final class PortTakenException extends IllegalStateException {

		private static final long serialVersionUID = 1L;

		PortTakenException(String problem, List<String> command, String output) {
			super(describe(problem, command, output));
		}

	}

}
