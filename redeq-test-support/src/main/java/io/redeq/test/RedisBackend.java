package io.redeq.test;

/**
 * What {@link RedisServer} drives: either a local {@code redis-server} child process
 * ({@link LocalRedisProcess}) or, when no binary is installed, a Docker container
 * ({@code ContainerRedis}). Kept package-private so the public API stays one class.
 */
interface RedisBackend {

	/** Starts the server and returns once it answers PING. */
	void start();

	/**
	 * Stops the server gracefully (SIGTERM), keeping its data for a later
	 * {@link #start()}.
	 */
	void stop();

	/** Kills the server abruptly (SIGKILL), as a crash would, keeping its data files. */
	void kill();

	/** Stops the server and deletes everything it wrote. */
	void close();

	boolean isRunning();

	String host();

	int port();

	/** What the server printed, for error messages and debugging. */
	String log();

}
