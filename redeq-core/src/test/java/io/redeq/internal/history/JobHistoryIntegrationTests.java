package io.redeq.internal.history;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.HistoryKind;
import io.redeq.HistorySeries;
import io.redeq.Job;
import io.redeq.LatenessSeries;
import io.redeq.Redeq;
import io.redeq.SubscriptionOptions;
import io.redeq.internal.EngineAccess;
import io.redeq.internal.JobEvents;
import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The shared job history: what the engine counts, where in time it lands, that instances
 * add up, that it expires, and how many bytes a busy topic costs.
 */
@RedisTest
class JobHistoryIntegrationTests {

	private static final Instant START = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.HOURS).plusSeconds(5);

	private final RedisClient lettuce;

	private final KeySpace keys = new KeySpace("redeq", 16);

	private RedisConnections connections;

	private ScriptRunner scripts;

	private StatefulRedisConnection<String, String> direct;

	JobHistoryIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void connect() {
		this.connections = new RedisConnections(this.lettuce);
		this.scripts = new ScriptRunner(this.connections, Duration.ofSeconds(10));
		this.direct = this.lettuce.connect();
	}

	@AfterEach
	void close() {
		this.direct.close();
		this.connections.close();
	}

	@Test
	void theEngineCountsWhatBecameOfItsJobs() {
		try (Redeq redeq = Redeq.builder(this.lettuce).build()) {
			redeq.subscribe("mail", String.class, (text, delivery) -> {
				if (text.startsWith("bad")) {
					throw new IllegalStateException("bad mail");
				}
			}, SubscriptionOptions.builder()
				.maxAttempts(2)
				.backoff(new io.redeq.Backoff(Duration.ofMillis(20), 1.0, Duration.ofMillis(20), 0.0))
				.build());
			redeq.client().schedule(Job.builder("mail").payload("good 1").build());
			redeq.client().schedule(Job.builder("mail").payload("good 2").build());
			redeq.client().schedule(Job.builder("mail").payload("bad 1").build());
			await().atMost(Duration.ofSeconds(20)).until(() -> redeq.admin().stats("mail").dead() == 1);
			// The dead event follows the bury's reply; flush until it is in.
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
				EngineAccess.history(redeq).flush();
				HistorySeries series = redeq.history().lastMinutes("mail", 10);
				assertThat(series.total(HistoryKind.SCHEDULED)).isEqualTo(3);
				assertThat(series.total(HistoryKind.COMPLETED)).isEqualTo(2);
				assertThat(series.total(HistoryKind.RETRIED)).isEqualTo(1);
				assertThat(series.total(HistoryKind.DEAD)).isEqualTo(1);
				assertThat(redeq.history().lastHours("mail", 2).total(HistoryKind.SCHEDULED)).isEqualTo(3);
			});
		}
	}

	@Test
	void countsLandInTheirMinuteAndHourAndInstancesAddUp() {
		MovableClock clock = new MovableClock(START);
		JobHistory one = history(clock);
		JobHistory two = history(clock);
		one.scheduled("report");
		one.flush();
		clock.advance(Duration.ofMinutes(3));
		one.scheduled("report");
		two.scheduled("report");
		two.completed("report", Duration.ZERO);
		one.flush();
		two.flush();

		HistorySeries minutes = one.lastMinutes("report", 5);
		assertThat(minutes.start())
			.isEqualTo(START.truncatedTo(java.time.temporal.ChronoUnit.MINUTES).plus(Duration.ofMinutes(-1)));
		assertThat(minutes.step()).isEqualTo(Duration.ofMinutes(1));
		assertThat(minutes.of(HistoryKind.SCHEDULED)).containsExactly(0, 1, 0, 0, 2);
		assertThat(minutes.of(HistoryKind.COMPLETED)).containsExactly(0, 0, 0, 0, 1);
		assertThat(minutes.of(HistoryKind.DEAD)).containsExactly(0, 0, 0, 0, 0);

		clock.advance(Duration.ofHours(2));
		two.dead("report");
		two.flush();
		HistorySeries hours = one.lastHours("report", 3);
		assertThat(hours.of(HistoryKind.SCHEDULED)).containsExactly(3, 0, 0);
		assertThat(hours.of(HistoryKind.DEAD)).containsExactly(0, 0, 1);
		assertThat(one.lastMinutes("report", 200).total(HistoryKind.SCHEDULED)).isEqualTo(3);
		assertThat(one.lastMinutes("other", 60).total(HistoryKind.SCHEDULED)).isZero();
	}

	@Test
	void theEngineRecordsHowLateItsJobsStarted() {
		Instant now = Instant.now();
		try (Redeq redeq = Redeq.builder(this.lettuce).build()) {
			// Due 30 s and 10 s ago: each starts at least that late, and within a minute
			// more even on a loaded machine.
			redeq.client().schedule(Job.builder("late").payload("a").dueAt(now.minusSeconds(30)).build());
			redeq.client().schedule(Job.builder("late").payload("b").dueAt(now.minusSeconds(10)).build());
			redeq.subscribe("late", String.class, (text, delivery) -> {
			});
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				EngineAccess.history(redeq).flush();
				LatenessSeries lateness = redeq.history().latenessLastMinutes("late", 10);
				assertThat(lateness.totalStarts()).isEqualTo(2);
				assertThat(lateness.peakMillis()).isBetween(30_000L, 90_000L);
				assertThat(lateness.overallAverageMillis()).isBetween(20_000L, 80_000L);
				assertThat(redeq.history().latenessLastHours("late", 2).totalStarts()).isEqualTo(2);
			});
		}
	}

	@Test
	void latenessLandsInItsMinuteWithCountAverageAndMaxOfEveryInstance() {
		MovableClock clock = new MovableClock(START);
		JobHistory one = history(clock);
		JobHistory two = history(clock);
		one.started("report", Duration.ofMillis(100));
		one.started("report", Duration.ofMillis(300));
		one.started("report", Duration.ofMillis(2_000));
		two.started("report", Duration.ofMillis(5_000));
		one.flush();
		two.flush();
		// A later flush of the same minute with a smaller maximum leaves the larger one.
		one.started("report", Duration.ofMillis(600));
		one.flush();
		// Ahead of its due time by clock skew: on time, not negative.
		one.started("report", Duration.ofMillis(-40));
		one.flush();
		clock.advance(Duration.ofMinutes(2));
		two.started("report", Duration.ofMillis(50));
		two.flush();

		LatenessSeries minutes = one.latenessLastMinutes("report", 4);
		assertThat(minutes.start())
			.isEqualTo(START.truncatedTo(java.time.temporal.ChronoUnit.MINUTES).plus(Duration.ofMinutes(-1)));
		assertThat(minutes.step()).isEqualTo(Duration.ofMinutes(1));
		assertThat(minutes.starts()).containsExactly(0, 6, 0, 1);
		assertThat(minutes.sumMillis()).containsExactly(0, 8_000, 0, 50);
		assertThat(minutes.maxMillis()).containsExactly(0, 5_000, 0, 50);
		assertThat(minutes.averageMillis(1)).isEqualTo(1_333);
		assertThat(minutes.averageMillis(0)).isZero();
		assertThat(minutes.overallAverageMillis()).isEqualTo(8_050 / 7);
		assertThat(minutes.peakMillis()).isEqualTo(5_000);

		LatenessSeries hours = two.latenessLastHours("report", 2);
		assertThat(hours.starts()).containsExactly(0, 7);
		assertThat(hours.sumMillis()).containsExactly(0, 8_050);
		assertThat(hours.maxMillis()).containsExactly(0, 5_000);
		assertThat(one.latenessLastMinutes("other", 60).totalStarts()).isZero();
	}

	@Test
	void latenessExpiresLikeTheCountsBesideIt() {
		Instant now = Instant.now();
		JobHistory history = history(Clock.fixed(now, ZoneOffset.UTC));
		history.started("mail", Duration.ofMillis(7));
		history.flush();
		long hour = now.toEpochMilli() / 3_600_000;
		long untilHourEnds = (hour + 1) * 3_600_000 - now.toEpochMilli();
		for (String kind : List.of("lateness-count", "lateness-sum", "lateness-max")) {
			long ttl = this.direct.sync().pttl(this.keys.historyKey("mail", kind, 'm', hour));
			assertThat(ttl).as(kind)
				.isBetween(untilHourEnds + Duration.ofDays(1).toMillis() - 60_000,
						untilHourEnds + Duration.ofDays(1).toMillis());
		}
	}

	@Test
	void minuteCountsExpireADayAfterTheirHourAndHourCountsAMonthAfterTheirDay() {
		Instant now = Instant.now();
		JobHistory history = history(Clock.fixed(now, ZoneOffset.UTC));
		history.retried("mail", Duration.ZERO);
		history.flush();

		long hour = now.toEpochMilli() / 3_600_000;
		long day = hour / 24;
		long minutesTtl = this.direct.sync().pttl(this.keys.historyKey("mail", "retried", 'm', hour));
		long hoursTtl = this.direct.sync().pttl(this.keys.historyKey("mail", "retried", 'h', day));
		long untilHourEnds = (hour + 1) * 3_600_000 - now.toEpochMilli();
		long untilDayEnds = (day + 1) * 86_400_000 - now.toEpochMilli();
		assertThat(minutesTtl).isBetween(untilHourEnds + Duration.ofDays(1).toMillis() - 60_000,
				untilHourEnds + Duration.ofDays(1).toMillis());
		assertThat(hoursTtl).isBetween(untilDayEnds + Duration.ofDays(31).toMillis() - 60_000,
				untilDayEnds + Duration.ofDays(31).toMillis());
	}

	/**
	 * The bound the docs state: a topic busy in every minute of a day and every hour of a
	 * month, all four kinds and lateness, holds at most 25 minute hashes and 32 hour
	 * hashes per kind (seven: the four counts and the lateness's count, sum and max).
	 */
	@Test
	void aTopicBusyAllDayAndAllMonthStaysSmall() {
		MovableClock clock = new MovableClock(START);
		JobHistory history = history(clock);
		for (int minute = 0; minute < 25 * 60; minute++) {
			everyKind(history, "busy.minutes", 1_000 + minute);
			history.flush();
			clock.advance(Duration.ofMinutes(1));
		}
		clock.set(START);
		for (int hour = 0; hour < 31 * 24; hour++) {
			everyKind(history, "busy.hours", 100_000 + hour);
			history.flush();
			clock.advance(Duration.ofHours(1));
		}
		RedisCommands<String, String> redis = this.direct.sync();
		List<String> minuteKeys = keys(redis, "redeq:history:busy.minutes:*:m:*");
		List<String> hourKeys = keys(redis, "redeq:history:busy.hours:*:h:*");
		assertThat(minuteKeys).hasSize(7 * 25);
		assertThat(hourKeys).hasSizeBetween(7 * 31, 7 * 32);
		for (String key : minuteKeys) {
			assertThat(redis.objectEncoding(key)).isIn("listpack", "ziplist");
		}
		long minuteBytes = bytes(redis, minuteKeys);
		long hourBytes = bytes(redis, hourKeys);
		List<String> latenessKeys = new java.util.ArrayList<>(minuteKeys);
		latenessKeys.addAll(hourKeys);
		latenessKeys.removeIf((key) -> !key.contains(":lateness-"));
		assertThat(latenessKeys).hasSizeBetween(3 * (25 + 31), 3 * (25 + 32));
		long latenessBytes = bytes(redis, latenessKeys);
		System.out.printf(
				"history of one busy topic: %d bytes per minute for a day, %d per hour for a month, %d of them lateness%n",
				minuteBytes, hourBytes, latenessBytes);
		assertThat(minuteBytes + hourBytes).isLessThan(140_000);
		assertThat(latenessBytes).isLessThan(70_000);
	}

	private static void everyKind(JobHistory history, String topic, int times) {
		for (int i = 0; i < times % 7 + 1; i++) {
			history.scheduled(topic);
			history.completed(topic, Duration.ZERO);
			history.retried(topic, Duration.ZERO);
			history.dead(topic);
			history.started(topic, Duration.ofMillis(times * 37L));
		}
	}

	private static List<String> keys(RedisCommands<String, String> redis, String pattern) {
		List<String> found = new java.util.ArrayList<>();
		ScanCursor cursor = ScanCursor.INITIAL;
		for (int round = 0; round < 10_000 && !cursor.isFinished(); round++) {
			KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
			found.addAll(page.getKeys());
			cursor = page;
		}
		return found;
	}

	private static long bytes(RedisCommands<String, String> redis, List<String> keys) {
		long total = 0;
		for (String key : keys) {
			total += redis.memoryUsage(key);
		}
		return total;
	}

	private JobHistory history(Clock clock) {
		return new JobHistory(this.keys, this.scripts, JobEvents.NONE, clock);
	}

	/** A clock the test moves. */
	private static final class MovableClock extends Clock {

		private volatile Instant now;

		MovableClock(Instant now) {
			this.now = now;
		}

		void advance(Duration by) {
			this.now = this.now.plus(by);
		}

		void set(Instant instant) {
			this.now = instant;
		}

		@Override
		public Instant instant() {
			return this.now;
		}

		@Override
		public java.time.ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(java.time.ZoneId zone) {
			return this;
		}

	}

}
