package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A topic's rate limit holds across three engines: the permits its limiter grants (each
 * job start takes one, read from the limiter's log in Redis) never exceed the limit in
 * any window, every start had one, and with enough jobs waiting the throughput is close
 * to the limit. Jobs beyond it wait READY without using an attempt.
 */
@RedisTest
class RateLimitIntegrationTests {

	private static final int PERMITS = 10;

	private static final Duration WINDOW = Duration.ofSeconds(1);

	private static final int JOBS = 60;

	private final RedisClient lettuce;

	private final List<Redeq> engines = new ArrayList<>();

	RateLimitIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@AfterEach
	void stop() {
		this.engines.forEach(Redeq::close);
	}

	@Test
	void threeEnginesTogetherStayUnderTheLimitAndCloseToIt() throws Exception {
		for (int i = 0; i < 3; i++) {
			this.engines.add(Redeq.builder(this.lettuce).instanceId("limited-" + i).build());
		}
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < JOBS; i++) {
			jobs.add(Job.builder("partner").id("call-" + i).payload(i).build());
		}
		this.engines.get(0).client().scheduleAll(jobs);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.engines.get(0).admin().stats("partner").ready() == JOBS);

		Set<String> started = ConcurrentHashMap.newKeySet();
		Set<Integer> attempts = ConcurrentHashMap.newKeySet();
		String grantsKey = new KeySpace(this.engines.get(0).options().prefix(), this.engines.get(0).options().buckets())
			.rateLimitKeys("partner")[0];
		try (StatefulRedisConnection<String, String> reader = this.lettuce.connect();
				GrantLog log = new GrantLog(() -> reader.sync().zrangeWithScores(grantsKey, 0, -1))) {
			for (Redeq engine : this.engines) {
				engine.subscribe("partner", Integer.class, (n, delivery) -> {
					started.add(delivery.id());
					attempts.add(delivery.attempt());
				}, SubscriptionOptions.builder().concurrency(4).rateLimit(PERMITS, WINDOW).build());
			}
			await().atMost(Duration.ofSeconds(60)).until(() -> started.size() == JOBS);
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(log.total()).as("permits kept by the grants").isEqualTo(JOBS));

			assertThat(log.mostInAnyWindow(WINDOW.toMillis())).as("starts in any window").isLessThanOrEqualTo(PERMITS);
			// 60 starts at 10 per second need at least 5 s between the first and the last
			// grant; close to the limit means not much more.
			assertThat(log.spanMillis()).isBetween(5_000L, 7_500L);
		}
		assertThat(attempts).as("waiting for the limit uses no attempt").containsExactly(1);
	}

}
