package io.redeq.internal.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.Duplicate;
import io.redeq.test.CommandStats;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * schedule.lua stores a call of one new job with a free id on a path of its own, without
 * the tables a call of many jobs needs. Whatever the job sets for itself, it must leave
 * exactly what the general path leaves for the same job in a call of two: the same record
 * after the created time, the same due score, the same pending count and the same report
 * of the bucket's earliest job, with only the five commands a new job needs.
 */
@RedisTest
class ScheduleOneJobIntegrationTests {

	private static final int BUCKET = 3;

	private static final String TOPIC = "one";

	/** What a schedule call runs inside its script, and nothing else here sends. */
	private static final Set<String> SCRIPT_COMMANDS = Set.of("time", "hmget", "hsetnx", "zadd", "hincrby", "hexists",
			"hget", "zmscore", "zscore", "zrange", "hset", "zrem", "hdel");

	private static final long FAR = Instant.now().plus(Duration.ofHours(2)).toEpochMilli();

	private final RedisClient lettuce;

	private final ScriptFixture fixture;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> redis;

	ScheduleOneJobIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
		this.fixture = new ScriptFixture(lettuce);
		this.connection = lettuce.connect();
		this.redis = this.connection.sync();
	}

	@AfterEach
	void close() {
		this.connection.close();
		this.fixture.close();
	}

	@Test
	void aNewJobAloneIsStoredAsTheGeneralPathStoresIt() {
		List<String> ids = this.fixture.idsInBucket(TOPIC, "j-", BUCKET, 16);
		KeySpace keys = this.fixture.keys;
		// A job due before all the others keeps the bucket's earliest out of these
		// comparisons.
		await(this.fixture.store.schedule(BUCKET, 0, List.of(new ScheduleRequest(KeySpace.jobKey(TOPIC, ids.get(15)),
				"{}", true, FAR - 3_600_000, Duplicate.REPLACE))));
		Map<String, BiFunction<String, Long, ScheduleRequest>> kinds = Map.of("at, nothing set",
				(jobKey, due) -> new ScheduleRequest(jobKey, "\"p\"", true, due, Duplicate.REPLACE), "a delay",
				(jobKey, due) -> new ScheduleRequest(jobKey, "{\"a\":1}", false, 3_600_000, Duplicate.KEEP),
				"priority, timeout and attempts",
				(jobKey, due) -> new ScheduleRequest(
						jobKey, "[1]", true, due, Duplicate.REJECT, JobSettings.of(Duration.ofSeconds(7), 4, 6), null),
				"a version and a trace context",
				(jobKey, due) -> new ScheduleRequest(jobKey, "1", true, due, Duplicate.REPLACE,
						JobSettings.NONE.withVersion("v9"),
						"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 k=v;w"));
		int next = 0;
		for (Map.Entry<String, BiFunction<String, Long, ScheduleRequest>> kind : kinds.entrySet()) {
			String alone = KeySpace.jobKey(TOPIC, ids.get(next++));
			String inPair = KeySpace.jobKey(TOPIC, ids.get(next++));
			String other = KeySpace.jobKey(TOPIC, ids.get(next++));
			long due = FAR + 60_000 + next;
			long countBefore = pending();
			long callsBefore = CommandStats.calls(this.lettuce, SCRIPT_COMMANDS::contains);
			List<ScheduleOutcome> one = await(
					this.fixture.store.schedule(BUCKET, 1000, List.of(kind.getValue().apply(alone, due))));
			long commands = CommandStats.calls(this.lettuce, SCRIPT_COMMANDS::contains) - callsBefore;
			List<ScheduleOutcome> two = await(
					this.fixture.store.schedule(BUCKET, 1000, List.of(kind.getValue().apply(inPair, due),
							new ScheduleRequest(other, "{}", true, due, Duplicate.REPLACE))));

			assertThat(one).as(kind.getKey()).hasSize(1);
			assertThat(one.get(0).status()).as(kind.getKey()).isEqualTo(two.get(0).status()).isEqualTo("new");
			assertThat(one.get(0).earliest()).as(kind.getKey()).isFalse();
			assertThat(two).as(kind.getKey()).noneMatch(ScheduleOutcome::earliest);
			assertThat(afterCreated(this.redis.hget(keys.payloadKey(BUCKET), alone))).as(kind.getKey())
				.isEqualTo(afterCreated(this.redis.hget(keys.payloadKey(BUCKET), inPair)));
			Double scoreAlone = this.redis.zscore(keys.dueKey(BUCKET), alone);
			Double scoreInPair = this.redis.zscore(keys.dueKey(BUCKET), inPair);
			if (kind.getKey().equals("a delay")) {
				// Due an hour after each call's own Redis time.
				assertThat(scoreAlone).as(kind.getKey()).isEqualTo(one.get(0).redisTime() + 3_600_000.0);
				assertThat(scoreInPair).as(kind.getKey()).isEqualTo(two.get(0).redisTime() + 3_600_000.0);
			}
			else {
				assertThat(scoreAlone).as(kind.getKey()).isEqualTo(scoreInPair);
			}
			assertThat(pending() - countBefore).as(kind.getKey() + ": the pending count").isEqualTo(3);
			// TIME, HMGET, HSETNX, ZADD, HINCRBY: no existence look, no index read.
			assertThat(commands).as(kind.getKey() + ": commands inside the call").isEqualTo(5);
		}
	}

	@Test
	void aNewJobAloneThatBecomesTheEarliestIsReportedAndLowersTheTimeToldOf() {
		List<String> ids = this.fixture.idsInBucket(TOPIC, "e-", BUCKET, 3);
		assertThat(scheduleAlone(ids.get(0), FAR).earliest()).as("nothing told yet").isTrue();
		assertThat(toldOf()).isEqualTo(FAR);
		assertThat(scheduleAlone(ids.get(1), FAR + 1).earliest()).as("after the time told").isFalse();
		assertThat(toldOf()).isEqualTo(FAR);
		assertThat(scheduleAlone(ids.get(2), FAR - 1).earliest()).as("before the time told").isTrue();
		assertThat(toldOf()).isEqualTo(FAR - 1);
	}

	@Test
	void aSingleJobThatFindsItsTopicFullIsRefusedAndLeavesNothing() {
		List<String> ids = this.fixture.idsInBucket(TOPIC, "f-", BUCKET, 3);
		for (int i = 0; i < 2; i++) {
			assertThat(await(this.fixture.store.schedule(BUCKET, 2, List.of(request(ids.get(i), FAR)))).get(0).status())
				.isEqualTo("new");
		}
		ScheduleOutcome refused = await(this.fixture.store.schedule(BUCKET, 2, List.of(request(ids.get(2), FAR))))
			.get(0);

		assertThat(refused.status()).isEqualTo("full");
		assertThat(refused.value()).isEqualTo("2");
		assertThat(this.redis.hexists(this.fixture.keys.payloadKey(BUCKET), KeySpace.jobKey(TOPIC, ids.get(2))))
			.isFalse();
		assertThat(pending()).isEqualTo(2);
	}

	private ScheduleOutcome scheduleAlone(String id, long due) {
		return await(this.fixture.store.schedule(BUCKET, 0, List.of(request(id, due)))).get(0);
	}

	private static ScheduleRequest request(String id, long due) {
		return new ScheduleRequest(KeySpace.jobKey(TOPIC, id), "{}", true, due, Duplicate.REPLACE);
	}

	private long pending() {
		String count = this.redis.hget(this.fixture.keys.countKey(BUCKET), TOPIC);
		return (count != null) ? Long.parseLong(count) : 0;
	}

	private long toldOf() {
		return Long.parseLong(this.redis.hget(this.fixture.keys.countKey(BUCKET), "~next"));
	}

	/** The record after its created time: 7 base-64 digits. */
	private static String afterCreated(String record) {
		assertThat(record).matches("[A-Za-z0-9_-]{7}[;| ].*");
		return record.substring(7);
	}

	private <T> T await(CompletionStage<T> stage) {
		return this.fixture.await(stage);
	}

}
