package io.redeq.test;

import java.util.ArrayList;
import java.util.List;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Fallback for machines with Docker but without a {@code redis-server} binary: Redis in a
 * Testcontainers container ({@value #IMAGE}).
 *
 * <p>
 * This is the only class that touches Testcontainers, and {@link RedisServer} loads it by
 * name, so the module works without Testcontainers on the classpath. A container cannot
 * be restarted on the same host port with its data, so {@link #start()} after
 * {@link #stop()} is refused: restart tests need a local {@code redis-server}.
 */
final class ContainerRedis implements RedisBackend {

	static final String IMAGE = "redis:7-alpine";

	private static final int REDIS_PORT = 6379;

	private final GenericContainer<?> container;

	private boolean started;

	ContainerRedis(List<String> extraArgs) {
		List<String> command = new ArrayList<>(
				List.of("redis-server", "--save", "", "--appendonly", "no", "--protected-mode", "no"));
		command.addAll(extraArgs);
		this.container = new GenericContainer<>(DockerImageName.parse(IMAGE)).withExposedPorts(REDIS_PORT)
			.withCommand(command.toArray(String[]::new))
			.waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1));
	}

	@Override
	public synchronized void start() {
		if (this.container.isRunning()) {
			return;
		}
		if (this.started) {
			throw new UnsupportedOperationException("A Redis container cannot be restarted with its data on the "
					+ "same port; restart tests need a local redis-server. " + RedisBinaries.installHint());
		}
		this.started = true;
		this.container.start();
	}

	@Override
	public void stop() {
		this.container.stop();
	}

	@Override
	public void kill() {
		this.container.stop(); // Testcontainers kills and removes the container
	}

	@Override
	public void close() {
		this.container.stop();
	}

	@Override
	public boolean isRunning() {
		return this.container.isRunning();
	}

	@Override
	public String host() {
		return this.container.getHost();
	}

	@Override
	public int port() {
		return this.container.getMappedPort(REDIS_PORT);
	}

	@Override
	public String log() {
		return this.container.isRunning() ? this.container.getLogs() : "";
	}

}
