package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.JavaProcess;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Recurring jobs on a real redis-server: one occurrence per tick across engines, no tick
 * lost when the engine that migrates the recurring job's bucket dies, missed ticks after
 * downtime, idempotent declarations and schedule changes without a double fire.
 */
@RedisTest
class RecurringIntegrationTests {

	private static final String TOPIC = "report";

	private static final Duration PATIENCE = Duration.ofSeconds(30);

	private final RedisServer server;

	private final RedisClient lettuce;

	private final List<Redeq> engines = new ArrayList<>();

	private final List<Delivery> deliveries = new CopyOnWriteArrayList<>();

	/** Tick and local time the handler started, of each delivery. */
	private final List<long[]> runs = new CopyOnWriteArrayList<>();

	private @Nullable StatefulRedisConnection<String, String> connection;

	RecurringIntegrationTests(RedisServer server, RedisClient lettuce) {
		this.server = server;
		this.lettuce = lettuce;
	}

	@AfterEach
	void stop() {
		this.engines.forEach(Redeq::close);
		if (this.connection != null) {
			this.connection.close();
		}
	}

	@Test
	void ticksEverySecondRunOnceEachAcrossTwoEngines() {
		Redeq first = consumingEngine("one");
		consumingEngine("two");

		String id = first.client()
			.scheduleRecurring(
					Recurring.builder(TOPIC).id("heartbeat").every(Duration.ofSeconds(1)).payload("x").build());

		await().atMost(PATIENCE).until(() -> this.deliveries.size() >= 6);
		assertEveryTickRanOnceOrWasMerged(this.runs, 1000);
		assertThat(this.deliveries).allSatisfy((delivery) -> {
			assertThat(delivery.id()).isEqualTo(id);
			assertThat(delivery.attempt()).isEqualTo(1);
		});
	}

	@Test
	void killingTheInstanceThatMigratesTheRecurringJobLosesNoTick() throws Exception {
		try (JavaProcess doomed = JavaProcess.start(ChildInstance.class, this.server.uri().toString(), "doomed",
				"migrate", "100")) {
			doomed.awaitLine((line) -> line.startsWith("READY"), PATIENCE);
			Redeq survivor = consumingEngine("survivor", Duration.ofSeconds(1));
			KeySpace keys = new KeySpace("redeq", survivor.options().buckets());
			await().atMost(PATIENCE).until(() -> survivor.ownedBuckets().length == keys.buckets() / 2);
			// The survivor took its half; the child may still be taking the rest back.
			String id = await().atMost(PATIENCE).until(() -> idInBucketOwnedBy("doomed", keys), Objects::nonNull);
			survivor.client().scheduleRecurring(Recurring.builder(TOPIC).id(id).every(Duration.ofSeconds(1)).build());
			await().atMost(PATIENCE).until(() -> this.deliveries.size() >= 3);

			doomed.kill();
			long lastBeforeKill = lastTick();

			// The survivor takes the bucket over once the lock expires; the tick after
			// the last one runs (with later ones merged into it while nobody migrated).
			await().atMost(PATIENCE).until(() -> dueTimes().contains(lastBeforeKill + 1000));
			await().atMost(PATIENCE).until(() -> lastTick() > lastBeforeKill + 1000);
			assertThat(dueTimes()).doesNotHaveDuplicates().isSorted();
		}
	}

	@Test
	void ticksMissedWhileNoInstanceRanCollapseIntoOneRun() {
		Redeq producer = engine("producer", false);
		producer.client().scheduleRecurring(Recurring.builder(TOPIC).id("sync").every(Duration.ofSeconds(1)).build());
		long firstTick = producer.admin().recurring().get(0).nextTick().toEpochMilli();
		await().atMost(PATIENCE).until(() -> redisTime() > firstTick + 3500);

		long restart = redisTime();
		consumingEngine("back");

		await().atMost(PATIENCE).until(() -> this.deliveries.size() >= 2);
		List<Long> ticks = dueTimes();
		assertThat(ticks.get(0)).as("one run for the missed ticks, carrying the first").isEqualTo(firstTick);
		assertThat(ticks.get(1)).as("then the next tick after the restart").isGreaterThan(restart);
		assertThat((ticks.get(1) - firstTick) % 1000).isZero();
	}

	@Test
	void aCronJobStoppedForAnHourRunsOnceForTheHourByDefaultAndNotAtAllWhenSkipping() {
		Redeq producer = engine("producer", false);
		producer.client()
			.scheduleRecurring(Recurring.builder(TOPIC).id("collapse").cron("0 * * * * *").payload("run-once").build());
		producer.client()
			.scheduleRecurring(Recurring.builder(TOPIC)
				.id("skip")
				.cron("0 * * * * *")
				.missed(Recurring.Missed.SKIP)
				.payload("skip")
				.build());
		long hourAgo = (redisTime() / 60_000 - 60) * 60_000;
		stoppedSince(producer, "collapse", hourAgo);
		stoppedSince(producer, "skip", hourAgo);

		// Ticks from the first minute after the restart on are due runs of both jobs, not
		// missed ones: only what was due before it is counted (the test may
		// straddle a minute).
		Instant firstTickAfterRestart = Instant.ofEpochMilli((redisTime() / 60_000 + 1) * 60_000);
		consumingEngine("back");

		await().atMost(PATIENCE).until(() -> missedRuns(firstTickAfterRestart).size() >= 1);
		await().during(Duration.ofSeconds(3))
			.atMost(PATIENCE)
			.until(() -> missedRuns(firstTickAfterRestart).size() == 1);
		assertThat(missedRuns(firstTickAfterRestart).get(0).id()).isEqualTo("collapse");
		assertThat(missedRuns(firstTickAfterRestart).get(0).dueAt()).isEqualTo(Instant.ofEpochMilli(hourAgo));
		long now = redisTime();
		assertThat(producer.admin().recurring()).hasSize(2)
			.allSatisfy((recurring) -> assertThat(recurring.nextTick().toEpochMilli()).isGreaterThan(now)
				.isLessThanOrEqualTo(now + 60_000));
	}

	@Test
	void declaringTheSameRecurringJobAtEveryStartupChangesNothing() {
		Recurring daily = Recurring.builder(TOPIC).id("daily").cron("0 0 9 * * MON-FRI").payload("sales").build();
		List<RecurringInfo> seen = new ArrayList<>();
		for (int startup = 0; startup < 3; startup++) {
			Redeq engine = engine("startup-" + startup, true);
			assertThat(engine.client().scheduleRecurring(daily)).isEqualTo("daily");
			seen.addAll(engine.admin().recurring());
		}

		assertThat(seen).hasSize(3).allSatisfy((info) -> assertThat(info).isEqualTo(seen.get(0)));
		assertThat(seen.get(0).cron()).isEqualTo("0 0 9 * * MON-FRI");
		assertThat(seen.get(0).payload()).isEqualTo("\"sales\"");
		assertThat(seen.get(0).nextTick()).isNotNull();
	}

	@Test
	void changingTheCronReplacesTheScheduleWithoutADoubleFire() {
		Redeq engine = consumingEngine("one");
		engine.client().scheduleRecurring(Recurring.builder(TOPIC).id("poll").cron("* * * * * *").build());
		await().atMost(PATIENCE).until(() -> this.deliveries.size() >= 3);

		engine.client().scheduleRecurring(Recurring.builder(TOPIC).id("poll").cron("*/2 * * * * *").build());
		long changed = redisTime();
		int before = this.deliveries.size();
		await().atMost(PATIENCE).until(() -> this.deliveries.size() >= before + 4);

		assertThat(dueTimes()).doesNotHaveDuplicates().isSorted();
		assertThat(dueTimes().stream().filter((tick) -> tick > changed + 1000)).isNotEmpty()
			.allSatisfy((tick) -> assertThat(tick % 2000).as("tick %s on the new schedule", tick).isZero());
		assertThat(engine.admin().recurring()).singleElement()
			.satisfies((info) -> assertThat(info.cron()).isEqualTo("*/2 * * * * *"));
	}

	@Test
	void cancellingARecurringJobStopsItsTicks() {
		Redeq engine = consumingEngine("one");
		engine.client().scheduleRecurring(Recurring.builder(TOPIC).id("gone").every(Duration.ofSeconds(1)).build());
		await().atMost(PATIENCE).until(() -> this.deliveries.size() >= 1);

		assertThat(engine.admin().cancelRecurring(TOPIC, "gone")).isTrue();
		int left = this.deliveries.size();

		assertThat(engine.client().cancelRecurring(TOPIC, "gone")).isFalse();
		assertThat(engine.admin().recurring()).isEmpty();
		// An occurrence created just before may still run; no tick after it.
		await().during(Duration.ofSeconds(3)).atMost(PATIENCE).until(() -> this.deliveries.size() <= left + 1);
	}

	@Test
	void aDeadOccurrenceIsReplacedByTheNextTick() {
		Redeq engine = engine("one", true);
		engine.subscribe(TOPIC, String.class, (payload, delivery) -> {
			this.deliveries.add(delivery);
			throw new IllegalStateException("fails every time");
		}, SubscriptionOptions.builder().maxAttempts(1).build());
		engine.client().scheduleRecurring(Recurring.builder(TOPIC).id("flaky").every(Duration.ofSeconds(1)).build());

		await().atMost(PATIENCE).until(() -> this.deliveries.size() >= 3);

		assertThat(dueTimes()).doesNotHaveDuplicates().isSorted();
	}

	private Redeq consumingEngine(String instanceId) {
		return consumingEngine(instanceId, null);
	}

	private Redeq consumingEngine(String instanceId, @Nullable Duration lockTtl) {
		Redeq.Builder builder = Redeq.builder(this.lettuce).instanceId(instanceId);
		if (lockTtl != null) {
			builder.lockTtl(lockTtl);
		}
		Redeq engine = builder.build();
		this.engines.add(engine);
		engine.subscribe(TOPIC, String.class, (payload, delivery) -> {
			this.runs.add(new long[] { delivery.dueAt().toEpochMilli(), System.currentTimeMillis() });
			this.deliveries.add(delivery);
		});
		return engine;
	}

	private Redeq engine(String instanceId, boolean migrate) {
		Redeq engine = Redeq.builder(this.lettuce).instanceId(instanceId).migratorEnabled(migrate).build();
		this.engines.add(engine);
		return engine;
	}

	/**
	 * Every tick of a period ran exactly once, in order, except ticks that came while the
	 * previous occurrence had not started yet (or still ran): those are merged into it,
	 * as docs/recurring.md says. The clocks compared are this machine's, as Redis's here.
	 */
	static void assertEveryTickRanOnceOrWasMerged(List<long[]> runs, long period) {
		List<Long> ticks = runs.stream().map((run) -> run[0]).toList();
		assertThat(ticks).as("ticks").doesNotHaveDuplicates().isSorted();
		for (int i = 1; i < runs.size(); i++) {
			long gap = runs.get(i)[0] - runs.get(i - 1)[0];
			assertThat(gap % period).as("ticks %s", ticks).isZero();
			if (gap > period) {
				long missing = runs.get(i - 1)[0] + period;
				assertThat(runs.get(i - 1)[1])
					.as("tick %s is missing from %s, but its previous occurrence started at %s", missing, ticks,
							runs.get(i - 1)[1])
					.isGreaterThanOrEqualTo(missing);
			}
		}
	}

	private long lastTick() {
		List<Long> ticks = dueTimes();
		return ticks.get(ticks.size() - 1);
	}

	private List<Long> dueTimes() {
		return this.deliveries.stream().map((delivery) -> delivery.dueAt().toEpochMilli()).toList();
	}

	/**
	 * Leaves a recurring job as an instance that stopped at {@code tick} would have: its
	 * trigger and plan at that tick, nothing run since.
	 */
	private void stoppedSince(Redeq engine, String id, long tick) {
		KeySpace keys = new KeySpace("redeq", engine.options().buckets());
		String jobKey = KeySpace.jobKey(TOPIC, id);
		int bucket = keys.bucketOf(jobKey);
		commands().hset(keys.tag(bucket) + ":recurring", "~p:" + jobKey, (tick - 60_000) + "|" + tick);
		commands().zadd(keys.tag(bucket) + ":due", tick, "~r:" + jobKey);
	}

	private @Nullable String idInBucketOwnedBy(String owner, KeySpace keys) {
		for (int i = 0; i < 200; i++) {
			String id = "tick-" + i;
			String lock = commands().get(keys.tag(keys.bucketOf(KeySpace.jobKey(TOPIC, id))) + ":lock");
			if (owner.equals(lock)) {
				return id;
			}
		}
		return null;
	}

	private long redisTime() {
		List<String> time = commands().time();
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

	private RedisCommands<String, String> commands() {
		if (this.connection == null) {
			this.connection = this.lettuce.connect();
		}
		return this.connection.sync();
	}

	private List<Delivery> missedRuns(Instant before) {
		return this.deliveries.stream().filter((delivery) -> delivery.dueAt().isBefore(before)).toList();
	}

}
