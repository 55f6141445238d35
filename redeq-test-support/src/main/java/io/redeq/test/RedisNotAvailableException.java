package io.redeq.test;

/**
 * Thrown when no Redis can be started for tests: no {@code redis-server} binary was found
 * and no Docker engine (with Testcontainers on the classpath) can stand in for it. The
 * message says how to install Redis.
 */
public class RedisNotAvailableException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	public RedisNotAvailableException(String message) {
		super(message);
	}

}
