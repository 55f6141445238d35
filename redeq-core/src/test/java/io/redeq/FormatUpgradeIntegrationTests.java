package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An instance that upgrades to data format 3 converts the jobs an instance of an earlier
 * format left in Redis, each in the state it had, and strands none. The first format's
 * keys are written here by hand, exactly as its scripts wrote them: one record per job,
 * {@code state|attempts|created|due|token|payload}, with a delay index, an in-flight
 * index, per-topic ready lists and dead sets, an errors hash and a counts hash.
 */
@RedisTest
class FormatUpgradeIntegrationTests {

	private final RedisClient lettuce;

	FormatUpgradeIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@Test
	void jobsOfTheFirstFormatAreConvertedInTheStateTheyHad() {
		String tag = new KeySpace("old", 1).tag(0);
		long now = System.currentTimeMillis();
		long later = now + Duration.ofHours(1).toMillis();
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			redis.hset(tag + ":jobs", Map.of("t:delayed", "D|0|" + now + "|" + later + "||\"d\"", //
					"t:retried", "D|1|" + now + "|" + later + "||\"r\"", //
					"t:ready", "R|0|" + now + "|" + now + "||\"ready\"", //
					"t:running", "I|1|" + now + "|" + now + "|gone:7|\"running\"", //
					"t:dead", "X|3|" + now + "|" + now + "||\"dead\""));
			redis.zadd(tag + ":delayed", later, "t:delayed");
			redis.zadd(tag + ":delayed", later, "t:retried");
			redis.rpush(tag + ":r:t", "t:ready");
			redis.zadd(tag + ":inflight", now - 1000, "t:running"); // its instance died
			redis.zadd(tag + ":dead", now, "t:dead");
			redis.zadd(tag + ":x:t", now, "t:dead");
			redis.hset(tag + ":errors", Map.of("t:retried", "first try failed", "t:dead", "boom"));
			redis.hset(tag + ":counts", Map.of("t:D", "2", "t:R", "1", "t:I", "1", "t:X", "1"));
			redis.hset("old:meta", "buckets", "1");
		}

		Map<String, Integer> attempts = new ConcurrentHashMap<>();
		try (Redeq redeq = Redeq.builder(this.lettuce)
			.prefix("old")
			.buckets(1)
			.lockTtl(Duration.ofSeconds(1))
			.build()) {
			assertThat(redeq.client().find("t", "delayed")).hasValueSatisfying((info) -> {
				assertThat(info.state()).isEqualTo(JobState.DELAYED);
				assertThat(info.dueAt()).isEqualTo(Instant.ofEpochMilli(later));
				assertThat(info.attempts()).isZero();
			});
			assertThat(redeq.client().find("t", "retried"))
				.hasValueSatisfying((info) -> assertThat(info.attempts()).isEqualTo(1));
			assertThat(redeq.admin().deadJobs("t", 0, 10)).singleElement().satisfies((dead) -> {
				assertThat(dead.id()).isEqualTo("dead");
				assertThat(dead.payload()).isEqualTo("\"dead\"");
				assertThat(dead.attempts()).isEqualTo(3);
				assertThat(dead.lastError()).isEqualTo("boom");
			});

			redeq.subscribe("t", String.class, (payload, delivery) -> attempts.put(payload, delivery.attempt()));
			await().atMost(Duration.ofSeconds(15)).until(() -> attempts.size() == 2);
			assertThat(attempts).containsOnly(Map.entry("ready", 1), Map.entry("running", 2));
			await().atMost(Duration.ofSeconds(5))
				.until(() -> redeq.admin().stats("t").equals(new TopicStats("t", 2, 0, 0, 1)));
			assertThat(redeq.admin().requeueDead("t", "dead")).isTrue();
			await().atMost(Duration.ofSeconds(10)).until(() -> attempts.containsKey("dead"));
		}

		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			List<String> oldKeys = connection.sync().keys(tag + ":*");
			assertThat(oldKeys).as("keys of the first format left")
				.noneMatch((key) -> key.endsWith(":jobs") || key.endsWith(":delayed") || key.endsWith(":inflight")
						|| key.endsWith(":counts") || key.endsWith(":errors") || key.endsWith(":r:t")
						|| key.endsWith(":x:t") || key.endsWith(":dead"));
			assertThat(connection.sync().hget("old:meta", "format")).isEqualTo("3");
		}
	}

	/**
	 * Format 2 kept the attempt records in a hash of their own; format 3 keeps them in
	 * the payload hash beside the jobs' records. Written here by hand as format 2 did.
	 */
	@Test
	void attemptRecordsOfTheSecondFormatMoveIntoThePayloadHash() {
		String tag = new KeySpace("two", 1).tag(0);
		long now = System.currentTimeMillis();
		long later = now + Duration.ofHours(1).toMillis();
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			redis.hset(tag + ":payload", Map.of("t:retried", now + "|\"retried\"", "t:ready", now + "|\"ready\"",
					"t:running", now + "|\"running\"", "t:dead", now + "|\"dead\""));
			redis.hset(tag + ":attempt", Map.of("t:retried", "1|" + later + "|", "t:running", "1|" + now + "|gone:7",
					"t:dead", "3|" + now + "|", "t:finished", "1|" + now + "|gone:8"));
			redis.zadd(tag + ":due", later, "t:retried");
			redis.zadd(tag + ":ready:t", now, "t:ready");
			redis.zadd(tag + ":lease", now - 1000, "t:running"); // its instance died
			redis.zadd(tag + ":died", now, "t:dead");
			redis.zadd(tag + ":dead:t", now, "t:dead");
			redis.hset(tag + ":error", Map.of("t:retried", "first try failed", "t:dead", "boom"));
			redis.hset(tag + ":count", Map.of("t", "3"));
			redis.hset("two:meta", Map.of("format", "2", "buckets", "1"));
		}

		Map<String, Integer> attempts = new ConcurrentHashMap<>();
		try (Redeq redeq = Redeq.builder(this.lettuce).prefix("two").buckets(1).build();
				StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			assertThat(redis.exists(tag + ":attempt")).as("format 2's attempt hash, after a start").isZero();
			assertThat(redis.hget("two:meta", "format")).isEqualTo("3");
			assertThat(redis.hkeys(tag + ":payload")).as("a record whose job was gone is not carried over")
				.containsExactlyInAnyOrder("t:retried", "t:ready", "t:running", "t:dead", "@t:retried", "@t:running",
						"@t:dead");
			assertThat(redeq.client().find("t", "retried")).hasValueSatisfying((info) -> {
				assertThat(info.state()).isEqualTo(JobState.DELAYED);
				assertThat(info.dueAt()).isEqualTo(Instant.ofEpochMilli(later));
				assertThat(info.attempts()).isEqualTo(1);
			});
			assertThat(redeq.admin().deadJobs("t", 0, 10)).singleElement().satisfies((dead) -> {
				assertThat(dead.id()).isEqualTo("dead");
				assertThat(dead.attempts()).isEqualTo(3);
				assertThat(dead.lastError()).isEqualTo("boom");
			});

			redeq.subscribe("t", String.class, (payload, delivery) -> attempts.put(payload, delivery.attempt()));
			await().atMost(Duration.ofSeconds(15)).until(() -> attempts.size() == 2);
			assertThat(attempts).as("the running job's lease expired: its attempt counts")
				.containsOnly(Map.entry("ready", 1), Map.entry("running", 2));
			await().atMost(Duration.ofSeconds(5))
				.until(() -> redeq.admin().stats("t").equals(new TopicStats("t", 1, 0, 0, 1)));
			assertThat(redis.hkeys(tag + ":payload")).as("finished jobs leave no attempt record behind")
				.containsExactlyInAnyOrder("t:retried", "t:dead", "@t:retried", "@t:dead");
		}
	}

	@Test
	void inFlightJobsAreCountedFromTheLeaseSetAndTheCountersOfAnEarlierVersionAreForgotten() throws Exception {
		String counts = new KeySpace("counted", 1).tag(0) + ":count";
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			// What an earlier redeq left: a per-topic in-flight counter beside
			// the pending one.
			connection.sync().hset(counts, Map.of("t", "0", "t:i", "5"));
		}
		CountDownLatch finish = new CountDownLatch(1);
		try (Redeq redeq = Redeq.builder(this.lettuce).prefix("counted").buckets(1).build();
				StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			assertThat(redis.hexists(counts, "t:i")).as("the earlier version's counter, after a start").isFalse();

			redeq.client().schedule("t", "a", Duration.ZERO);
			redeq.client().schedule("t", "b", Duration.ZERO);
			redeq.client().schedule("t", "later", Duration.ofHours(1));
			redeq.subscribe("t", String.class, (payload, delivery) -> finish.await(),
					SubscriptionOptions.builder().concurrency(2).timeout(Duration.ofMinutes(5)).build());
			await().atMost(Duration.ofSeconds(10))
				.until(() -> redeq.admin().stats("t").equals(new TopicStats("t", 1, 0, 2, 0)));
			// An older instance, still running in a rolling upgrade, writes its counter
			// again: nothing reads it.
			redis.hset(counts, "t:i", "9");
			assertThat(redeq.admin().stats("t")).isEqualTo(new TopicStats("t", 1, 0, 2, 0));
			assertThat(redeq.refreshSnapshot().topics()).as("the metrics' snapshot, read by another script")
				.containsExactly(Map.entry("t", new TopicStats("t", 1, 0, 2, 0)));
			assertThat(redeq.admin().topics()).containsExactly("t");

			finish.countDown();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> redeq.admin().stats("t").equals(new TopicStats("t", 1, 0, 0, 0)));
		}
	}

}
