package io.redeq;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A redeq instance without Spring in a JVM of its own, for the shutdown hook tests: they
 * stop it with SIGTERM. It consumes topic {@code hooked}, prints {@code RUNNING <id>}
 * when a handler starts and records each completed job in Redis ({@code test:completed},
 * id → count), so that the test can see what the engine did while the JVM went down.
 *
 * <p>
 * Arguments: redis URI, whether to register the shutdown hook, the shutdown timeout in
 * ms. Two handlers run at once; a job whose payload is {@code finish} takes a second, one
 * whose payload is {@code hang} waits until it is interrupted.
 */
public final class ShutdownHookInstance {

	private ShutdownHookInstance() {
	}

	public static void main(String[] args) throws Exception {
		RedisClient client = RedisClient.create(args[0]);
		// Neither is closed by this main: the JVM's shutdown (with the hook, the engine's
		// close) is what the tests watch.
		StatefulRedisConnection<String, String> recorder = client.connect();
		RedisCommands<String, String> record = recorder.sync();
		Redeq redeq = Redeq.builder(client)
			.shutdownHook(Boolean.parseBoolean(args[1]))
			.shutdownTimeout(Duration.ofMillis(Long.parseLong(args[2])))
			.build();
		redeq.subscribe("hooked", String.class, (payload, delivery) -> {
			System.out.println("RUNNING " + delivery.id());
			if (payload.equals("hang")) {
				new CountDownLatch(1).await();
			}
			else {
				// The handler's work: still running when SIGTERM arrives.
				Thread.sleep(1000);
			}
			synchronized (record) {
				record.hincrby("test:completed", delivery.id(), 1);
			}
		}, SubscriptionOptions.builder().concurrency(2).timeout(Duration.ofMinutes(5)).build());
		System.out.println("READY");
		new CountDownLatch(1).await(); // until stopped
	}

}
