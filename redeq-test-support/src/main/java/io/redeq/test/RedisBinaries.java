package io.redeq.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Finds the Redis binaries tests run, and tells whether Docker can stand in for them.
 *
 * <p>
 * Order: the {@value #SERVER_ENV} environment variable (a path to {@code redis-server}),
 * then {@code redis-server} on {@code PATH}, then where Debian and Homebrew install it
 * ({@code /usr/bin}, {@code /opt/homebrew/bin}, {@code /usr/local/bin}).
 * {@code redis-cli} is looked for next to the server binary first, so a custom build
 * brings its own matching CLI, then in the same places.
 */
public final class RedisBinaries {

	/** Environment variable naming the {@code redis-server} binary to use. */
	public static final String SERVER_ENV = "REDEQ_REDIS_SERVER";

	/** Debian's and Homebrew's directories, after the {@code PATH}. */
	private static final List<String> USUAL_DIRS = List.of("usr/bin", ProgramLocations.HOMEBREW_BINS.get(0),
			ProgramLocations.HOMEBREW_BINS.get(1));

	private static volatile Boolean dockerAvailable;

	private RedisBinaries() {
	}

	/** The {@code redis-server} binary to run, if one can be found. */
	public static Optional<Path> redisServer() {
		return findRedisServer(ProgramLocations.system());
	}

	/** The {@code redis-cli} binary to run, if one can be found. */
	public static Optional<Path> redisCli() {
		return findRedisCli(ProgramLocations.system());
	}

	/**
	 * The {@code redis-server} binary, or an exception that says how to install Redis.
	 */
	public static Path requireRedisServer() {
		return redisServer().orElseThrow(() -> new RedisNotAvailableException(
				"No redis-server binary found on PATH, in /usr/bin, /opt/homebrew/bin or /usr/local/bin, and "
						+ SERVER_ENV + " is not set. " + installHint()));
	}

	/** The {@code redis-cli} binary, or an exception that says how to install Redis. */
	public static Path requireRedisCli() {
		return redisCli().orElseThrow(() -> new RedisNotAvailableException(
				"No redis-cli binary found next to redis-server, on PATH, in /usr/bin, /opt/homebrew/bin or /usr/local/bin. "
						+ installHint()));
	}

	/**
	 * Whether a Docker engine answers ({@code docker info} exits 0). A Docker client
	 * alone is not enough, which is why this runs the command instead of looking for the
	 * binary. The answer is computed once per JVM.
	 */
	public static boolean dockerAvailable() {
		Boolean available = dockerAvailable;
		if (available == null) {
			available = runsSuccessfully("docker", "info");
			dockerAvailable = available;
		}
		return available;
	}

	/**
	 * How to get Redis onto this machine; part of every "Redis not available" message.
	 */
	public static String installHint() {
		return "Install Redis to run these tests: 'sudo apt-get install redis-server' (Debian/Ubuntu), "
				+ "'brew install redis' (macOS), or set " + SERVER_ENV
				+ " to the path of a redis-server binary. A running Docker engine with Testcontainers "
				+ "on the test classpath also works for single-server tests.";
	}

	static Optional<Path> findRedisServer(ProgramLocations where) {
		String configured = where.env(SERVER_ENV);
		if (configured != null) {
			Path path = Path.of(configured);
			// Fail loudly: silently falling back to another redis-server would
			// hide a typo.
			if (!Files.isExecutable(path)) {
				throw new RedisNotAvailableException(SERVER_ENV + " points at '" + configured
						+ "', which is not an executable file. " + installHint());
			}
			return Optional.of(path);
		}
		return where.find("redis-server", USUAL_DIRS);
	}

	static Optional<Path> findRedisCli(ProgramLocations where) {
		Optional<Path> sibling = findRedisServer(where).map((server) -> server.resolveSibling("redis-cli"))
			.filter(Files::isExecutable);
		return sibling.isPresent() ? sibling : where.find("redis-cli", USUAL_DIRS);
	}

	private static boolean runsSuccessfully(String... command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				return false;
			}
			return process.exitValue() == 0;
		}
		catch (IOException ex) {
			return false; // the command is not installed
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
