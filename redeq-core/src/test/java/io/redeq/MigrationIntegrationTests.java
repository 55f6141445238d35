package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.CommandStats;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The migrator on a real redis-server: on time without the sweep, large batches, bucket
 * ownership over several instances, the bucket count guard with its reshard, and that
 * nothing runs before the engine is started.
 */
@RedisTest
class MigrationIntegrationTests {

	private final RedisClient lettuce;

	private final RedisServer server;

	MigrationIntegrationTests(RedisClient lettuce, RedisServer server) {
		this.lettuce = lettuce;
		this.server = server;
	}

	@Test
	void aJobDueIn200msIsReadyWithinMillisecondsWithoutWaitingForTheSweep() {
		try (Redeq redeq = Redeq.builder(this.lettuce).sweepInterval(Duration.ofSeconds(30)).build()) {
			awaitOwnership(redeq, 16);
			String id = redeq.client().schedule("soon", "x", Duration.ofMillis(200));
			long due = redeq.client().find("soon", id).orElseThrow().dueAt().toEpochMilli();

			await().atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(1))
				.until(() -> redeq.client().find("soon", id).orElseThrow().state() == JobState.READY);
			long lateness = redisTimeMillis() - due;

			assertThat(lateness).as("ms between due time and READY (Redis clock)").isBetween(0L, 100L);
		}
	}

	@Test
	void aLargeDueBatchIsMigratedWithNothingLostOrDoubled() {
		int total = 100_000;
		try (Redeq producer = Redeq.builder(this.lettuce).migratorEnabled(false).build()) {
			List<Job> jobs = new ArrayList<>(total);
			for (int i = 0; i < total; i++) {
				jobs.add(Job.builder("bulk").id("j" + i).payload(i).build());
			}
			for (int from = 0; from < total; from += 10_000) {
				producer.client().scheduleAll(jobs.subList(from, from + 10_000));
			}
			assertThat(producer.admin().stats("bulk").delayed()).isEqualTo(total);
		}
		try (Redeq migrating = Redeq.builder(this.lettuce).build()) {
			await().atMost(Duration.ofSeconds(60)).until(() -> migrating.admin().stats("bulk").ready() == total);
			assertThat(migrating.admin().stats("bulk").delayed()).isZero();
			assertThat(readyEntries("bulk", 16)).hasSize(total).doesNotHaveDuplicates();
		}
	}

	@Test
	void instancesShareTheBucketsAndTakeOverWhenOneLeaves() {
		try (Redeq first = engine("a"); Redeq second = engine("b")) {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> first.ownedBuckets().length == 8 && second.ownedBuckets().length == 8);
			Set<Integer> all = new HashSet<>();
			IntStream.of(first.ownedBuckets()).forEach(all::add);
			IntStream.of(second.ownedBuckets()).forEach(all::add);
			assertThat(all).hasSize(16);

			first.close();

			await().atMost(Duration.ofSeconds(5)).until(() -> second.ownedBuckets().length == 16);
		}
	}

	@Test
	void aDeadInstancesBucketsAreTakenOverWithinTheLockTtl() {
		RedisClient doomedClient = RedisClient.create(this.server.uri());
		Redeq doomed = Redeq.builder(doomedClient).instanceId("doomed").lockTtl(Duration.ofSeconds(1)).build();
		try (Redeq survivor = engine("survivor")) {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> doomed.ownedBuckets().length == 8 && survivor.ownedBuckets().length == 8);
			// Cut the doomed instance off from Redis without any cleanup, as
			// a crash would.
			doomedClient.shutdown(Duration.ZERO, Duration.ZERO);
			long cutAt = System.nanoTime();

			await().atMost(Duration.ofSeconds(5)).until(() -> survivor.ownedBuckets().length == 16);
			assertThat(Duration.ofNanos(System.nanoTime() - cutAt)).isLessThan(Duration.ofSeconds(4));
			String id = survivor.client().schedule("after", "x", Duration.ZERO);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> survivor.client().find("after", id).orElseThrow().state() == JobState.READY);
		}
		finally {
			doomed.close();
		}
	}

	@Test
	void aDifferentBucketCountIsFollowedOrRefusedAndTheReshardMovesEveryJob() {
		int total = 2000;
		try (Redeq redeq = Redeq.builder(this.lettuce).migratorEnabled(false).build()) {
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < total; i++) {
				jobs.add(Job.builder("moving").id("m" + i).payload(i).delay(Duration.ofHours(1)).build());
			}
			redeq.client().scheduleAll(jobs);
			redeq.client().schedule(Job.builder("moving").id("ready-now").payload(0).build());
		}
		try (Redeq following = Redeq.builder(this.lettuce).buckets(64).migratorEnabled(false).build()) {
			assertThat(following.options().buckets()).as("the count recorded in Redis").isEqualTo(16);
			assertThat(following.client().find("moving", "m0")).isPresent();
		}
		Redeq unread = Redeq.builder(this.lettuce).buckets(64).autoStartup(false).build();
		try {
			assertThatExceptionOfType(BucketCountMismatchException.class).isThrownBy(unread::start)
				.withMessageContaining("16 buckets in Redis")
				.withMessageContaining("64 buckets are configured")
				.withMessageContaining("changeBucketCount(64)");
		}
		finally {
			unread.close();
		}

		long moved = Redeq.builder(this.lettuce).buckets(64).reshard();

		assertThat(moved).isGreaterThan(total / 2);
		try (Redeq resharded = Redeq.builder(this.lettuce).buckets(64).migratorEnabled(false).build()) {
			assertThat(resharded.admin().stats("moving").delayed()).isEqualTo(total + 1);
			for (int i = 0; i < total; i++) {
				assertThat(resharded.client().find("moving", "m" + i)).as("job m" + i).isPresent();
			}
		}
		assertThat(Redeq.builder(this.lettuce).buckets(64).reshard()).as("a second run moves nothing").isZero();
	}

	/**
	 * A job's attempt record is a field of its bucket's payload hash (data format 3): the
	 * reshard moves it with the job, and skips it when it looks for jobs to move.
	 */
	@Test
	void aReshardCarriesEveryJobsAttemptsAndLastError() {
		int total = 40;
		try (Redeq redeq = Redeq.builder(this.lettuce).prefix("tried").build()) {
			redeq.subscribe("failing", String.class, (payload, delivery) -> {
				throw new IllegalStateException("no luck with " + payload + " on attempt " + delivery.attempt());
			}, SubscriptionOptions.builder()
				.maxAttempts(2)
				.backoff(new Backoff(Duration.ofMillis(10), 1.0, Duration.ofMillis(10), 0))
				.build());
			for (int i = 0; i < total; i++) {
				redeq.client().schedule(Job.builder("failing").id("f" + i).payload("f" + i).build());
			}
			await().atMost(Duration.ofSeconds(20)).until(() -> redeq.admin().stats("failing").dead() == total);
		}

		long moved = Redeq.builder(this.lettuce).prefix("tried").buckets(64).reshard();

		assertThat(moved).as("jobs moved, not their attempt records").isBetween(1L, (long) total);
		try (Redeq resharded = Redeq.builder(this.lettuce).prefix("tried").buckets(64).migratorEnabled(false).build()) {
			assertThat(resharded.admin().deadJobs("failing", 0, 100)).hasSize(total).allSatisfy((dead) -> {
				assertThat(dead.attempts()).as(dead.id()).isEqualTo(2);
				assertThat(dead.lastError()).as(dead.id()).contains("no luck with " + dead.id() + " on attempt 2");
			});
		}
	}

	@Test
	void twoMigratorsOnOneBucketNeitherLoseNorDoubleAJob() throws Exception {
		int total = 20_000;
		try (Redeq producer = Redeq.builder(this.lettuce).prefix("race").buckets(1).migratorEnabled(false).build()) {
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < total; i++) {
				jobs.add(Job.builder("race").id("r" + i).payload(i).build());
			}
			producer.client().scheduleAll(jobs);
		}
		// Both engines own the single bucket in their own eyes: one holds the lock, the
		// other is forced to migrate anyway through the store, as a migrator whose
		// lock lapsed would.
		RacingMigrators.run(this.lettuce, "race", total);
		assertThat(readyEntries("race", 1, "race")).hasSize(total).doesNotHaveDuplicates();
	}

	@Test
	void anEngineBuiltButNeverStartedSendsRedisNothing() {
		long before = redeqCommands();
		Redeq idle = Redeq.builder(this.lettuce)
			.autoStartup(false)
			.sweepInterval(Duration.ofMillis(100))
			.lockTtl(Duration.ofMillis(300))
			.meterRegistry(new SimpleMeterRegistry())
			.build();
		try {
			idle.client();
			idle.admin();
			// Long enough for a started migrator to check its ownership and
			// sweep many times.
			await().during(Duration.ofMillis(700))
				.atMost(Duration.ofSeconds(2))
				.until(() -> idle.ownedBuckets().length == 0 && keyCount() == 0);
		}
		finally {
			idle.close();
		}
		assertThat(keyCount()).isZero();
		assertThat(redeqCommands() - before).as("commands other than this test's own").isZero();
	}

	@Test
	void startingABuiltEngineRunsItsMigratorOnce() {
		try (Redeq redeq = Redeq.builder(this.lettuce).autoStartup(false).build()) {
			redeq.start();
			redeq.start();

			awaitOwnership(redeq, 16);
			String id = redeq.client().schedule("started", "x", Duration.ZERO);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> redeq.client().find("started", id).orElseThrow().state() == JobState.READY);
			redeq.close();
			assertThatIllegalStateException().isThrownBy(redeq::start).withMessageContaining("closed");
		}
	}

	private long keyCount() {
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			return connection.sync().dbsize();
		}
	}

	/**
	 * Every command Redis served except those this test's own connections send: the
	 * handshake, INFO and DBSIZE.
	 */
	private long redeqCommands() {
		return CommandStats.calls(this.lettuce, (name) -> !name.equals("info") && !name.equals("dbsize")
				&& !name.equals("hello") && !name.startsWith("client") && !name.equals("flushall"));
	}

	private Redeq engine(String instanceId) {
		return Redeq.builder(this.lettuce).instanceId(instanceId).lockTtl(Duration.ofSeconds(1)).build();
	}

	private static void awaitOwnership(Redeq redeq, int buckets) {
		await().atMost(Duration.ofSeconds(10)).until(() -> redeq.ownedBuckets().length == buckets);
	}

	private List<String> readyEntries(String topic, int buckets) {
		return readyEntries(topic, buckets, "redeq");
	}

	private List<String> readyEntries(String topic, int buckets, String prefix) {
		KeySpace keys = new KeySpace(prefix, buckets);
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			List<String> entries = new ArrayList<>();
			for (int b = 0; b < buckets; b++) {
				entries.addAll(connection.sync().zrange(keys.readyKey(b, topic), 0, -1));
			}
			return entries;
		}
	}

	private long redisTimeMillis() {
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			List<String> time = connection.sync().time();
			return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
		}
	}

	@Test
	void aTopicWithoutConsumersKeepsItsSignalListBounded() {
		try (Redeq redeq = Redeq.builder(this.lettuce).build();
				StatefulRedisConnection<String, String> redis = this.lettuce.connect()) {
			awaitOwnership(redeq, 16);
			long pushesBefore = rpushCalls(redis);
			for (int i = 0; i < 300; i++) {
				String id = redeq.client().schedule("unheard", i, Duration.ZERO);
				// Looked at every 5 ms from the start: a first look after 100 ms
				// (Awaitility's default) made these 300 waits take 30 s.
				await().pollDelay(Duration.ZERO)
					.pollInterval(Duration.ofMillis(5))
					.atMost(Duration.ofSeconds(5))
					.until(() -> redeq.client().find("unheard", id).orElseThrow().state() == JobState.READY);
			}
			String signals = new KeySpace("redeq", 16).signalKey("unheard");
			assertThat(rpushCalls(redis) - pushesBefore).as("signals pushed").isGreaterThan(64);
			await().atMost(Duration.ofSeconds(5)).until(() -> redis.sync().llen(signals) <= 64);
		}
	}

	private static long rpushCalls(StatefulRedisConnection<String, String> redis) {
		String stats = redis.sync().info("commandstats");
		int at = stats.indexOf("cmdstat_rpush:calls=");
		if (at < 0) {
			return 0;
		}
		int from = at + "cmdstat_rpush:calls=".length();
		return Long.parseLong(stats.substring(from, stats.indexOf(',', from)));
	}

}
