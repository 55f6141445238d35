package io.redeq.internal.redis;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.redeq.Duplicate;
import io.redeq.DuplicateJobException;
import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.Redeq;
import io.redeq.TopicStats;
import io.redeq.test.CommandStats;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * schedule.lua finds which jobs of a larger call already exist with one HMGET, reads the
 * states of those with one ZMSCORE per index and writes the call with one HSET and one
 * ZADD; a single job takes the HSETNX path. Both must leave the same jobs in the same
 * states with the same counts, for every state a job with the same id can be in, and for
 * an id sent twice in one call.
 */
@RedisTest
class ScheduleBatchIntegrationTests {

	private static final int BUCKET = 5;

	private static final Instant FAR = Instant.now().plus(Duration.ofHours(2));

	private static final Instant LATER = FAR.plus(Duration.ofHours(1));

	private final RedisClient lettuce;

	private final ScriptFixture fixture;

	private final Redeq redeq;

	private final RedisJobStore store;

	ScheduleBatchIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
		this.fixture = new ScriptFixture(lettuce);
		this.redeq = this.fixture.redeq;
		this.store = this.fixture.store;
	}

	@AfterEach
	void close() {
		this.fixture.close();
	}

	@ParameterizedTest(name = "all in one call: {0}")
	@ValueSource(booleans = { true, false })
	void everyStateOfAnExistingIdIsHandledAsOneJobAtATimeWould(boolean oneCall) {
		String topic = oneCall ? "batch" : "single";
		List<String> ids = this.fixture.idsInBucket(topic, "s-", BUCKET, 9);
		String delayedReplaced = ids.get(0);
		String delayedKept = ids.get(1);
		String readyReplaced = ids.get(2);
		String readyKept = ids.get(3);
		String running = ids.get(4);
		String dead = ids.get(5);
		List<String> fresh = ids.subList(6, 9);
		Instant past = Instant.now().minusSeconds(60);
		schedule(Job.builder(topic).id(dead).dueAt(past.minusSeconds(2)).build());
		schedule(Job.builder(topic).id(running).dueAt(past.minusSeconds(1)).build());
		schedule(Job.builder(topic).id(readyReplaced).dueAt(past).build());
		schedule(Job.builder(topic).id(readyKept).dueAt(past).build());
		schedule(Job.builder(topic).id(delayedReplaced).dueAt(FAR).build());
		schedule(Job.builder(topic).id(delayedKept).dueAt(FAR).build());
		this.store.migrate(BUCKET, 100, false, "", 10_000, 0);
		ClaimedJob buried = await(this.store.claim(BUCKET, topic, 1, 30_000, "inst:c:1", 1)).jobs().get(0);
		await(this.store.bury(buried, "test"));
		assertThat(buried.id()).isEqualTo(dead);
		assertThat(await(this.store.claim(BUCKET, topic, 1, 30_000, "inst:c:2", 3)).jobs().get(0).id())
			.isEqualTo(running);
		long zmscoreBefore = CommandStats.calls(this.lettuce, "zmscore"::equals);

		List<Job> call = new ArrayList<>();
		for (String id : fresh) {
			call.add(Job.builder(topic).id(id).dueAt(FAR).build());
		}
		call.add(Job.builder(topic).id(delayedReplaced).dueAt(LATER).build());
		call.add(Job.builder(topic).id(delayedKept).dueAt(LATER).onDuplicate(Duplicate.KEEP).build());
		call.add(Job.builder(topic).id(readyReplaced).dueAt(LATER).build());
		call.add(Job.builder(topic).id(readyKept).dueAt(LATER).onDuplicate(Duplicate.KEEP).build());
		call.add(Job.builder(topic).id(dead).dueAt(LATER).onDuplicate(Duplicate.REJECT).build());
		call.add(Job.builder(topic).id(running).dueAt(LATER).build());
		call.add(Job.builder(topic).id(fresh.get(0)).dueAt(LATER).build()); // again
		if (oneCall) {
			assertThatExceptionOfType(DuplicateJobException.class)
				.isThrownBy(() -> this.redeq.client().scheduleAll(call))
				.withMessageContaining(running);
		}
		else {
			for (Job job : call) {
				if (job.id().equals(running)) {
					assertThatExceptionOfType(DuplicateJobException.class).isThrownBy(() -> schedule(job));
				}
				else {
					schedule(job);
				}
			}
		}

		assertThat(info(topic, fresh.get(0))).satisfies((job) -> assertDelayed(job, LATER));
		assertThat(info(topic, fresh.get(1))).satisfies((job) -> assertDelayed(job, FAR));
		assertThat(info(topic, delayedReplaced)).satisfies((job) -> assertDelayed(job, LATER));
		assertThat(info(topic, delayedKept)).satisfies((job) -> assertDelayed(job, FAR));
		assertThat(info(topic, readyReplaced)).satisfies((job) -> assertDelayed(job, LATER));
		assertThat(info(topic, readyKept).state()).isEqualTo(JobState.READY);
		assertThat(info(topic, dead)).satisfies((job) -> assertDelayed(job, LATER));
		assertThat(info(topic, running).state()).isEqualTo(JobState.IN_FLIGHT);
		TopicStats stats = this.redeq.admin().stats(topic);
		assertThat(stats.delayed()).as("delayed").isEqualTo(7);
		assertThat(stats.ready()).as("ready").isEqualTo(1);
		assertThat(stats.inFlight()).as("in flight").isEqualTo(1);
		assertThat(stats.dead()).as("dead").isZero();
		long zmscoreCalls = CommandStats.calls(this.lettuce, "zmscore"::equals) - zmscoreBefore;
		if (oneCall) {
			assertThat(zmscoreCalls).as("states read for the whole call").isEqualTo(4);
		}
		else {
			assertThat(zmscoreCalls).as("single jobs read their state one by one").isZero();
		}
	}

	@Test
	void aCallOfNewJobsReadsNoIndexAndEachIsDueWhenItAsked() {
		String topic = "fresh";
		List<String> ids = this.fixture.idsInBucket(topic, "n-", BUCKET, 12);
		List<Job> call = new ArrayList<>();
		for (int i = 0; i < ids.size(); i++) {
			Job.Builder job = Job.builder(topic).id(ids.get(i));
			call.add((i % 2 == 0) ? job.dueAt(FAR.plusMillis(i)).build() : job.delay(Duration.ofHours(3)).build());
		}
		long zmscoreBefore = CommandStats.calls(this.lettuce, "zmscore"::equals);
		long hmgetBefore = CommandStats.calls(this.lettuce, "hmget"::equals);
		Instant sent = Instant.now();

		assertThat(this.redeq.client().scheduleAll(call)).containsExactlyElementsOf(ids);

		assertThat(CommandStats.calls(this.lettuce, "zmscore"::equals) - zmscoreBefore).as("index reads").isZero();
		assertThat(CommandStats.calls(this.lettuce, "hmget"::equals) - hmgetBefore)
			.as("the existence look and the layout check")
			.isEqualTo(2);
		for (int i = 0; i < ids.size(); i++) {
			JobInfo job = info(topic, ids.get(i));
			if (i % 2 == 0) {
				assertDelayed(job, FAR.plusMillis(i));
			}
			else {
				assertThat(job.state()).isEqualTo(JobState.DELAYED);
				assertThat(job.dueAt()).isBetween(sent.plus(Duration.ofHours(3)).minusSeconds(5),
						Instant.now().plus(Duration.ofHours(3)).plusSeconds(5));
			}
		}
		assertThat(this.redeq.admin().stats(topic).delayed()).isEqualTo(ids.size());
	}

	/**
	 * A call tells which of its jobs became the bucket's earliest by the due set's head
	 * score, for a batch of distinct ids, a single job, a priority's fractional score and
	 * an id sent twice; a call whose jobs all come after the head marks none.
	 */
	@Test
	void theJobThatBecameTheBucketsEarliestIsMarkedAndOnlyThatOne() {
		List<String> ids = this.fixture.idsInBucket("head", "h-", BUCKET, 12);
		long far = FAR.toEpochMilli();
		assertThat(earliest(request(ids.get(0), far), request(ids.get(1), far - 10), request(ids.get(2), far + 10)))
			.as("distinct ids, the second the earliest")
			.containsExactly(false, true, false);
		assertThat(earliest(request(ids.get(3), far), request(ids.get(4), far + 5))).as("all after the head")
			.containsExactly(false, false);
		assertThat(earliest(request(ids.get(5), far - 20))).as("a single job").containsExactly(true);
		assertThat(earliest(request(ids.get(6), far - 19))).as("a single job after the head").containsExactly(false);
		ScheduleRequest urgent = new ScheduleRequest(KeySpace.jobKey("head", ids.get(7)), "{}", true, far - 30,
				Duplicate.REPLACE, JobSettings.of(null, null, 9), null);
		assertThat(earliest(request(ids.get(8), far - 25), urgent)).as("a priority job's fractional score")
			.containsExactly(false, true);
		assertThat(earliest(request(ids.get(9), far - 40), request(ids.get(10), far), request(ids.get(9), far - 50)))
			.as("an id sent twice, earliest at its last write")
			.containsExactly(false, false, true);
		assertThat(this.redeq.admin().stats("head").delayed()).isEqualTo(11);
	}

	@Test
	void aJobIsReportedOnlyWhenDueBeforeTheTimeTheMigratorsWereToldOf() {
		List<String> ids = this.fixture.idsInBucket("head", "t-", BUCKET, 4);
		long far = FAR.toEpochMilli();
		assertThat(earliest(request(ids.get(0), far))).as("nothing told yet").containsExactly(true);
		assertThat(this.store.migrate(BUCKET, 100, false, "", 10_000, 0).nextDue()).isEqualTo(far);
		assertThat(this.redeq.client().cancel("head", ids.get(0))).isTrue();

		// The due set's head now, but the migrator told of `far` runs by then
		// and finds it.
		assertThat(earliest(request(ids.get(1), far + 10))).as("after the time told").containsExactly(false);
		assertThat(this.store.migrate(BUCKET, 100, false, "", 10_000, 0).nextDue()).isEqualTo(far + 10);
		assertThat(earliest(request(ids.get(2), far + 5))).as("before the time told").containsExactly(true);
		assertThat(earliest(request(ids.get(3), far + 7))).as("after the lowered time").containsExactly(false);
		assertThat(this.store.migrate(BUCKET, 100, false, "", 10_000, 0).nextDue()).isEqualTo(far + 5);
	}

	@Test
	void aTimeToldOfThatHasPassedIsCheckedAgainstTheDueSetsHead() {
		List<String> ids = this.fixture.idsInBucket("head", "p-", BUCKET, 4);
		long far = FAR.toEpochMilli();
		assertThat(earliest(request(ids.get(0), far))).containsExactly(true);
		// As an older redeq leaves it during a rolling upgrade: its migrate moved the
		// jobs due then and wrote no new time.
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			connection.sync().hset(this.fixture.keys.countKey(BUCKET), "~next", Long.toString(far - 7_200_000));
		}

		assertThat(earliest(request(ids.get(1), far + 10))).as("behind the head").containsExactly(false);
		assertThat(this.redeq.client().cancel("head", ids.get(0))).isTrue();
		assertThat(earliest(request(ids.get(2), far + 20))).as("behind the new head").containsExactly(false);
		assertThat(earliest(request(ids.get(3), far + 5))).as("the head").containsExactly(true);
	}

	private List<Boolean> earliest(ScheduleRequest... requests) {
		return await(this.store.schedule(BUCKET, 0, List.of(requests))).stream()
			.map(ScheduleOutcome::earliest)
			.toList();
	}

	private static ScheduleRequest request(String id, long dueAt) {
		return new ScheduleRequest(KeySpace.jobKey("head", id), "{}", true, dueAt, Duplicate.REPLACE);
	}

	private void schedule(Job job) {
		this.redeq.client().schedule(job);
	}

	private JobInfo info(String topic, String id) {
		return this.redeq.client().find(topic, id).orElseThrow();
	}

	private static void assertDelayed(JobInfo job, Instant dueAt) {
		assertThat(job.state()).as(job.id() + " state").isEqualTo(JobState.DELAYED);
		assertThat(job.dueAt()).as(job.id() + " due").isEqualTo(dueAt.truncatedTo(ChronoUnit.MILLIS));
	}

	private <T> T await(CompletionStage<T> stage) {
		return this.fixture.await(stage);
	}

}
