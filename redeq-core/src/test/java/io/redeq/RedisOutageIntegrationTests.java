package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Redis going away: a restart under load (AOF, fsync always) loses no accepted job and
 * needs no application restart; an application started before Redis works once Redis is
 * up, and a schedule meanwhile fails within the command timeout instead of hanging.
 */
class RedisOutageIntegrationTests {

	@Test
	void aRedisRestartUnderLoadLosesNoAcceptedJob() {
		try (RedisServer server = new RedisServer().withAppendOnly().start()) {
			RedisClient lettuce = RedisClient.create(server.uri());
			Set<String> accepted = ConcurrentHashMap.newKeySet();
			Set<String> completed = ConcurrentHashMap.newKeySet();
			List<Integer> refused = new ArrayList<>();
			try (Redeq redeq = Redeq.builder(lettuce).commandTimeout(Duration.ofSeconds(2)).build()) {
				// A claim whose reply the outage swallowed leaves its job IN_FLIGHT until
				// the lease
				// expires; a short lease keeps that recovery inside the test's time.
				redeq.subscribe("survives", Integer.class, (n, delivery) -> completed.add(delivery.id()),
						SubscriptionOptions.builder().concurrency(4).lease(Duration.ofSeconds(3)).build());
				for (int round = 0; round < 40; round++) {
					if (round == 15) {
						server.stop();
					}
					if (round == 20) {
						server.start();
					}
					List<Job> batch = new ArrayList<>();
					for (int i = 0; i < 50; i++) {
						batch.add(Job.builder("survives")
							.id(round + "-" + i)
							.payload(i)
							.delay(Duration.ofMillis(i * 10L))
							.build());
					}
					try {
						accepted.addAll(redeq.client().scheduleAll(batch));
					}
					catch (RedeqUnavailableException ex) {
						refused.add(round);
					}
				}
				// Refused while Redis was down and until Lettuce's reconnect backoff
				// found it again;
				// from then on every call goes through with no restart of the
				// application.
				assertThat(refused).as("rounds refused").isNotEmpty().allMatch((round) -> round >= 15 && round < 30);
				await().atMost(Duration.ofSeconds(60)).until(() -> completed.containsAll(accepted));
				await().atMost(Duration.ofSeconds(10)).until(() -> redeq.admin().stats("survives").pending() == 0);
			}
			finally {
				lettuce.shutdown();
			}
			assertThat(accepted).hasSizeGreaterThanOrEqualTo(25 * 50);
		}
	}

	@Test
	void anApplicationStartedBeforeRedisWorksOnceRedisIsUp() {
		RedisServer server = new RedisServer().start();
		server.stop(); // keeps its port: Redis is simply not there yet
		RedisClient lettuce = RedisClient.create(server.uri());
		Set<String> completed = ConcurrentHashMap.newKeySet();
		try (Redeq redeq = Redeq.builder(lettuce).commandTimeout(Duration.ofSeconds(1)).build()) {
			redeq.subscribe("late", String.class, (payload, delivery) -> completed.add(payload));

			long start = System.nanoTime();
			assertThatExceptionOfType(RedeqUnavailableException.class)
				.isThrownBy(() -> redeq.client().schedule("late", "too early", Duration.ZERO))
				.withMessageContaining("Redis");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
			assertThat(redeq.refreshSnapshot().redisReachable()).isFalse();

			server.start();
			await().atMost(Duration.ofSeconds(10))
				.ignoreExceptions()
				.until(() -> redeq.client().schedule("late", "on time", Duration.ZERO) != null);
			await().atMost(Duration.ofSeconds(15)).until(() -> completed.contains("on time"));
			assertThat(redeq.refreshSnapshot().redisReachable()).isTrue();
		}
		finally {
			lettuce.shutdown();
			server.close();
		}
	}

}
