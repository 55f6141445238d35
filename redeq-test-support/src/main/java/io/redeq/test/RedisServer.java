package io.redeq.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import io.lettuce.core.RedisURI;

/**
 * A real Redis server for tests: a {@code redis-server} child process on a free port of
 * 127.0.0.1, with its own temp directory, that persists nothing unless asked to.
 *
 * <pre>{@code
 * try (RedisServer redis = new RedisServer().start()) {
 *     RedisClient client = RedisClient.create(redis.uri());
 *     ...
 * }
 * }</pre>
 *
 * <p>
 * Default arguments: {@code --daemonize no --port <free> --bind 127.0.0.1 --dir <temp>
 * --save "" --appendonly no --protected-mode no}. {@link #withArgs(String...)} appends
 * more, and later arguments win, e.g.
 * {@code withArgs("--appendonly", "yes", "--appendfsync",
 * "always")} for a server whose data survives {@link #stop()} and {@link #start()}.
 *
 * <p>
 * Lifecycle: {@link #stop()} and {@link #kill()} end the process but keep its port and
 * files, so {@link #start()} brings it back with its data; {@link #close()} also deletes
 * the files. A JVM shutdown hook kills whatever is still running when the JVM exits.
 *
 * <p>
 * The binary comes from {@link RedisBinaries}. Without one, a running Docker engine and
 * Testcontainers on the classpath give a container ({@code redis:7-alpine}) instead; such
 * a server cannot be restarted (see {@link #isLocalProcess()}).
 */
public final class RedisServer implements AutoCloseable {

	/** How long {@link #start()} waits for the server to answer PING by default. */
	public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(20);

	private static final String CONTAINER_CLASS = "io.redeq.test.ContainerRedis";

	private static final String TESTCONTAINERS_CLASS = "org.testcontainers.containers.GenericContainer";

	private final List<String> args = new ArrayList<>();

	private final boolean localOnly;

	private final List<String> leadingArgs = new ArrayList<>();

	private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;

	private RedisBackend backend;

	/** A server with the default arguments; nothing runs until {@link #start()}. */
	public RedisServer() {
		this(false);
	}

	private RedisServer(boolean localOnly) {
		this.localOnly = localOnly;
	}

	/**
	 * A server that must be a local process, never a container (cluster nodes need that).
	 */
	static RedisServer localProcess() {
		return new RedisServer(true);
	}

	/**
	 * A Redis Sentinel process ({@code redis-server <configFile> --sentinel}) on a free
	 * port; the file holds the {@code sentinel monitor} lines and Sentinel rewrites it as
	 * it learns.
	 */
	static RedisServer sentinel(Path configFile) {
		RedisServer server = new RedisServer(true);
		server.leadingArgs.addAll(List.of(configFile.toString(), "--sentinel"));
		return server;
	}

	/** Appends {@code redis-server} arguments; call before the first {@link #start()}. */
	public synchronized RedisServer withArgs(String... args) {
		requireNotStarted();
		this.args.addAll(Arrays.asList(args));
		return this;
	}

	/**
	 * Turns on the append-only file with an fsync per write, so data survives a restart.
	 */
	public RedisServer withAppendOnly() {
		return withArgs("--appendonly", "yes", "--appendfsync", "always");
	}

	/**
	 * How long {@link #start()} waits for PING before it fails with the server's output.
	 */
	public synchronized RedisServer withStartupTimeout(Duration timeout) {
		requireNotStarted();
		this.startupTimeout = timeout;
		return this;
	}

	/**
	 * Starts the server, or starts it again on the same port and directory after
	 * {@link #stop()} or {@link #kill()}, and returns once it answers PING. Does nothing
	 * if it is running.
	 * @return this server
	 * @throws RedisNotAvailableException if neither redis-server nor Docker can be found
	 * @throws IllegalStateException if the server does not come up; the message holds its
	 * output
	 */
	public synchronized RedisServer start() {
		if (this.backend == null) {
			this.backend = createBackend();
		}
		this.backend.start();
		return this;
	}

	/**
	 * Stops the server gracefully (SIGTERM, waiting for it to exit), keeping port and
	 * files.
	 */
	public synchronized void stop() {
		if (this.backend != null) {
			this.backend.stop();
		}
	}

	/**
	 * Kills the server with SIGKILL, as a crash would; port and files are kept for a
	 * restart.
	 */
	public synchronized void kill() {
		if (this.backend != null) {
			this.backend.kill();
		}
	}

	/** Stops the server and deletes its temp directory. It cannot be started again. */
	@Override
	public synchronized void close() {
		if (this.backend != null) {
			this.backend.close();
		}
	}

	/** Whether the server process is alive. */
	public synchronized boolean isRunning() {
		return this.backend != null && this.backend.isRunning();
	}

	/**
	 * Whether this server is a local child process (restartable), not a container.
	 * @throws IllegalStateException if it has never been started
	 */
	public synchronized boolean isLocalProcess() {
		return started().getClass() == LocalRedisProcess.class;
	}

	/** The host to connect to: {@code 127.0.0.1} for a local process. */
	public synchronized String host() {
		return started().host();
	}

	/** The port the server listens on; it stays the same across stop and start. */
	public synchronized int port() {
		return started().port();
	}

	/**
	 * A new Lettuce URI for this server (a new instance each call, as RedisURI is
	 * mutable).
	 */
	public RedisURI uri() {
		return RedisURI.Builder.redis(host(), port()).build();
	}

	/** Everything the server has printed so far, for debugging a failing test. */
	public synchronized String log() {
		return (this.backend != null) ? this.backend.log() : "";
	}

	/** Deletes all keys in all databases ({@code FLUSHALL}). */
	public void flushAll() {
		call("FLUSHALL");
	}

	/**
	 * Sends one command over a fresh connection and returns a simple, integer or bulk
	 * reply.
	 */
	String call(String... command) {
		try {
			return RespClient.call(host(), port(), Duration.ofSeconds(10), command);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("'" + String.join(" ", command) + "' failed on " + this, ex);
		}
	}

	/**
	 * Sends one command whose reply is an array of bulk strings, over a fresh connection.
	 */
	List<String> callForList(String... command) {
		try {
			return RespClient.callForList(host(), port(), Duration.ofSeconds(10), command);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("'" + String.join(" ", command) + "' failed on " + this, ex);
		}
	}

	@Override
	public synchronized String toString() {
		if (this.backend == null) {
			return "RedisServer[not started]";
		}
		return "RedisServer[" + this.backend.host() + ":" + this.backend.port()
				+ (this.backend.isRunning() ? ", running]" : ", stopped]");
	}

	private RedisBackend started() {
		if (this.backend == null) {
			throw new IllegalStateException("RedisServer has not been started");
		}
		return this.backend;
	}

	private void requireNotStarted() {
		if (this.backend != null) {
			throw new IllegalStateException("Configure a RedisServer before its first start()");
		}
	}

	private RedisBackend createBackend() {
		Optional<Path> binary = RedisBinaries.redisServer();
		if (binary.isPresent()) {
			return new LocalRedisProcess(binary.get(), this.leadingArgs, this.args, this.startupTimeout);
		}
		if (this.localOnly || !RedisBinaries.dockerAvailable()) {
			throw new RedisNotAvailableException("No redis-server binary found on PATH and " + RedisBinaries.SERVER_ENV
					+ " is not set" + (this.localOnly ? "" : ", and Docker is not running") + ". "
					+ RedisBinaries.installHint());
		}
		return createContainer();
	}

	/** Loads the Testcontainers fallback by name, so that it is only needed when used. */
	private RedisBackend createContainer() {
		ClassLoader loader = RedisServer.class.getClassLoader();
		try {
			Class.forName(TESTCONTAINERS_CLASS, false, loader);
		}
		catch (ClassNotFoundException ex) {
			throw new RedisNotAvailableException("No redis-server binary found; Docker is running but "
					+ "org.testcontainers:testcontainers is not on the test classpath. Add it, or install Redis. "
					+ RedisBinaries.installHint());
		}
		try {
			return (RedisBackend) Class.forName(CONTAINER_CLASS, true, loader)
				.getDeclaredConstructor(List.class)
				.newInstance(List.copyOf(this.args));
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Could not create the Redis container", ex);
		}
	}

}
