package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code redeq.dead-letter.retention} on a real redis-server: a dead job is kept for the
 * retention, then its owner's sweep forgets it entirely (no admin call finds it and no
 * key of the prefix still names it), while a job that died later stays until its own
 * retention is over.
 */
@RedisTest
class DeadLetterRetentionIntegrationTests {

	private static final Duration RETENTION = Duration.ofSeconds(4);

	/**
	 * How much later the second job dies than the first: half the retention, so the first
	 * is gone a whole sweep interval (1 s) and more before the second's retention ends.
	 */
	private static final Duration LATER = Duration.ofSeconds(2);

	private final RedisClient lettuce;

	DeadLetterRetentionIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@Test
	void aDeadJobIsForgottenAfterTheRetentionWhileOneThatDiedLaterStays() {
		try (Redeq redeq = Redeq.builder(this.lettuce).deadLetterRetention(RETENTION).build();
				StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			Map<String, Instant> died = new ConcurrentHashMap<>();
			redeq.subscribe("doomed", String.class, (payload, delivery) -> {
				throw new IllegalStateException("always fails: " + payload);
			}, SubscriptionOptions.builder().maxAttempts(1).build());
			redeq.client().schedule(Job.builder("doomed").id("first").payload("a").build());
			redeq.client().schedule(Job.builder("doomed").id("second").payload("b").delay(LATER).build());
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				redeq.admin().deadJobs("doomed", 0, 10).forEach((job) -> died.put(job.id(), job.diedAt()));
				return died.containsKey("first");
			});
			assertThat(redeq.admin().job("doomed", "first"))
				.hasValueSatisfying((job) -> assertThat(job.lastError()).contains("always fails: a"));

			await().atMost(RETENTION.plusSeconds(5))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> redeq.admin().job("doomed", "first").isEmpty());
			Instant goneAt = Instant.now();

			assertThat(goneAt).as("when the first dead job was gone")
				.isAfterOrEqualTo(died.get("first").plus(RETENTION).minusMillis(50));
			assertThat(redeq.client().find("doomed", "first")).isEmpty();
			assertThat(redeq.admin().deadJobs("doomed", 0, 10)).extracting(DeadJob::id).containsExactly("second");
			assertThat(redeq.admin().stats("doomed").dead()).isOne();
			assertThat(entriesNaming(connection.sync(), "doomed:first")).as("entries of any key naming the job")
				.isEmpty();
			assertThat(entriesNaming(connection.sync(), "doomed:second")).isNotEmpty();

			await().atMost(LATER.plus(RETENTION).plusSeconds(5)).until(() -> redeq.admin().stats("doomed").dead() == 0);
			assertThat(redeq.admin().job("doomed", "second")).isEmpty();
			assertThat(entriesNaming(connection.sync(), "doomed:second")).isEmpty();
			assertThat(redeq.admin().requeueDead("doomed", "first")).isFalse();
		}
	}

	/**
	 * Every key, hash field, set or list member and string value in Redis that contains
	 * {@code text}, as {@code key -> entry}.
	 */
	private static List<String> entriesNaming(RedisCommands<String, String> redis, String text) {
		List<String> found = new ArrayList<>();
		ScanCursor cursor = ScanCursor.INITIAL;
		do {
			KeyScanCursor<String> page = redis.scan(cursor, KeyScanArgs.Builder.limit(500));
			for (String key : page.getKeys()) {
				if (key.contains(text)) {
					found.add(key);
				}
				List<String> entries = switch (redis.type(key)) {
					case "hash" -> {
						List<String> both = new ArrayList<>();
						redis.hgetall(key).forEach((field, value) -> {
							both.add(field);
							both.add(value);
						});
						yield both;
					}
					case "zset" -> redis.zrange(key, 0, -1);
					case "set" -> new ArrayList<>(redis.smembers(key));
					case "list" -> redis.lrange(key, 0, -1);
					case "string" -> List.of(String.valueOf(redis.get(key)));
					default -> List.of();
				};
				entries.stream()
					.filter((entry) -> entry.contains(text))
					.forEach((entry) -> found.add(key + " -> " + entry));
			}
			cursor = page;
		}
		while (!cursor.isFinished());
		return found;
	}

}
