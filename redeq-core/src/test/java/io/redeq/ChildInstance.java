package io.redeq;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A redeq instance in a JVM of its own, for the crash tests: they kill it with SIGKILL.
 * Every delivery is recorded in Redis ({@code test:started} and {@code test:completed},
 * id → count) so that the test can count each job after the process is gone.
 *
 * <p>
 * Arguments: redis URI, instance id, mode, then mode arguments:
 * <ul>
 * <li>{@code consume <topic> <concurrency> <hang>}: consumes; with hang=true handlers
 * never return</li>
 * <li>{@code migrate <batch-size>}: migrates only, in small batches</li>
 * </ul>
 */
public final class ChildInstance {

	private ChildInstance() {
	}

	public static void main(String[] args) throws Exception {
		RedisClient client = RedisClient.create(args[0]);
		String instanceId = args[1];
		String mode = args[2];
		Redeq.Builder builder = Redeq.builder(client).instanceId(instanceId).lockTtl(Duration.ofSeconds(1));
		if (mode.equals("migrate")) {
			builder.batchSize(Integer.parseInt(args[3]));
		}
		try (StatefulRedisConnection<String, String> recorder = client.connect(); Redeq redeq = builder.build()) {
			RedisCommands<String, String> record = recorder.sync();
			if (mode.equals("consume")) {
				boolean hang = Boolean.parseBoolean(args[5]);
				CountDownLatch never = new CountDownLatch(1);
				redeq.subscribe(args[3], String.class, (payload, delivery) -> {
					synchronized (record) {
						record.hincrby("test:started", delivery.id(), 1);
					}
					if (hang) {
						never.await();
					}
					synchronized (record) {
						record.hincrby("test:completed", delivery.id(), 1);
					}
				}, SubscriptionOptions.builder()
					.concurrency(Integer.parseInt(args[4]))
					.lease(Duration.ofSeconds(2))
					.build());
			}
			System.out.println("READY " + instanceId);
			new CountDownLatch(1).await(); // until killed
		}
	}

}
