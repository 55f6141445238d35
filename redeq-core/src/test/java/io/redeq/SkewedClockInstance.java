package io.redeq;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;

/**
 * The child JVM of {@link ClockSkewIntegrationTests}: its wall clock is shifted, and it
 * schedules a job one second ahead, consumes it, and prints how long that took on its
 * monotonic clock.
 */
public final class SkewedClockInstance {

	private SkewedClockInstance() {
	}

	public static void main(String[] args) throws Exception {
		RedisClient client = RedisClient.create(args[0]);
		try (Redeq redeq = Redeq.builder(client).build();
				io.lettuce.core.api.StatefulRedisConnection<String, String> clock = client.connect()) {
			CountDownLatch warmedUp = new CountDownLatch(1);
			CountDownLatch delivered = new CountDownLatch(1);
			long[] startedAt = new long[1];
			redeq.subscribe("skewed", String.class, (payload, delivery) -> {
				startedAt[0] = System.nanoTime();
				(payload.equals("warm-up") ? warmedUp : delivered).countDown();
			});
			// A first round trip loads every class on the path, so the measured one is
			// not a JVM warm-up.
			redeq.client().schedule("skewed", "warm-up", Duration.ZERO);
			if (!warmedUp.await(30, TimeUnit.SECONDS)) {
				System.out.println("NOT DELIVERED warm-up");
				return;
			}
			java.util.List<String> time = clock.sync().time();
			long redisBefore = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
			long scheduledAt = System.nanoTime();
			String id = redeq.client().schedule("skewed", "hello", Duration.ofSeconds(1));
			long dueAt = redeq.client().find("skewed", id).orElseThrow().dueAt().toEpochMilli();
			System.out.println("SCHEDULED dueInMs=" + (dueAt - redisBefore) + " localNow=" + System.currentTimeMillis()
					+ " localInstant=" + java.time.Instant.now().toEpochMilli());
			if (!delivered.await(20, TimeUnit.SECONDS)) {
				System.out.println("NOT DELIVERED");
				return;
			}
			System.out.println("DELIVERED afterMs=" + TimeUnit.NANOSECONDS.toMillis(startedAt[0] - scheduledAt));
		}
		finally {
			client.shutdown();
		}
	}

}
