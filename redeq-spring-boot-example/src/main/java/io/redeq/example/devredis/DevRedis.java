package io.redeq.example.devredis;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server process the example started for itself.
 */
final class DevRedis {

	private final Process process;

	private final int port;

	private DevRedis(Process process, int port) {
		this.process = process;
		this.port = port;
	}

	static DevRedis start(Path binary, int port) {
		ProcessBuilder builder = new ProcessBuilder(binary.toString(), "--port", Integer.toString(port), "--bind",
				"127.0.0.1", "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction")
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD);
		try {
			DevRedis redis = new DevRedis(builder.start(), port);
			redis.awaitReady(Duration.ofSeconds(10));
			return redis;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start " + binary + ": " + ex.getMessage(), ex);
		}
	}

	private void awaitReady(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("redis-server exited at once with code " + this.process.exitValue());
			}
			if (DevRedisEnvironmentPostProcessor.answers("127.0.0.1", this.port, Duration.ofMillis(200))) {
				return;
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		stop();
		throw new IllegalStateException("redis-server did not answer on port " + this.port + " within " + timeout);
	}

	void stop() {
		if (this.process.isAlive()) {
			this.process.destroy();
			try {
				if (!this.process.waitFor(5, TimeUnit.SECONDS)) {
					this.process.destroyForcibly();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				this.process.destroyForcibly();
			}
		}
	}

}
