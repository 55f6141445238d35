package io.redeq.example.devredis;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Makes the example run on a fresh machine: when nothing answers at
 * {@code spring.data.redis.*} and {@code redeq.example.embedded-redis} is {@code auto}
 * (the example's default; {@code never} turns this off), starts a {@code redis-server}
 * from the PATH on a free port and points {@code spring.data.redis.port} at it, before
 * the application context is built. The server keeps no data on disk and is stopped when
 * the application exits.
 */
public class DevRedisEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

	static final String MODE = "redeq.example.embedded-redis";

	private final Log logger;

	public DevRedisEnvironmentPostProcessor(DeferredLogFactory logFactory) {
		this.logger = logFactory.getLog(DevRedisEnvironmentPostProcessor.class);
	}

	@Override
	public int getOrder() {
		// After application.yml is loaded, so that its spring.data.redis.*
		// and mode count.
		return ConfigDataEnvironmentPostProcessor.ORDER + 1;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		String mode = environment.getProperty(MODE, "never");
		if (!"auto".equalsIgnoreCase(mode) || environment.containsProperty("spring.data.redis.url")
				|| environment.containsProperty("spring.data.redis.cluster.nodes")
				|| environment.containsProperty("spring.data.redis.sentinel.master")) {
			return;
		}
		String host = environment.getProperty("spring.data.redis.host", "localhost");
		int port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
		if (answers(host, port, Duration.ofMillis(500))) {
			return;
		}
		if (!host.equals("localhost") && !host.equals("127.0.0.1")) {
			this.logger.warn("Nothing answers at Redis " + host + ":" + port + "; not starting a local Redis for a "
					+ "remote host");
			return;
		}
		Path binary = findOnPath("redis-server");
		if (binary == null) {
			this.logger.warn("Nothing answers at Redis " + host + ":" + port + " and no redis-server is on the PATH. "
					+ "Start Redis (e.g. 'docker run -p 6379:6379 redis:7' or 'apt-get install redis-server') and "
					+ "restart the example; redeq will keep trying meanwhile.");
			return;
		}
		int freePort = freePort();
		DevRedis redis = DevRedis.start(binary, freePort);
		environment.getPropertySources()
			.addFirst(new MapPropertySource("redeqExampleDevRedis",
					Map.of("spring.data.redis.host", "127.0.0.1", "spring.data.redis.port", freePort)));
		// Stopped when the JVM exits, after Spring Boot closed the application
		// context (redeq first).
		SpringApplication.getShutdownHandlers().add(redis::stop);
		this.logger.info("Nothing answered at Redis " + host + ":" + port + ", so the example started its own: "
				+ binary + " on port " + freePort + " (in memory only; data is gone when the example stops). Set "
				+ MODE + "=never to turn this off.");
	}

	static boolean answers(String host, int port, Duration timeout) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static @Nullable Path findOnPath(String name) {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String dir : path.split(File.pathSeparator)) {
			Path candidate = Path.of(dir, name);
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot find a free port for a local Redis", ex);
		}
	}

}
