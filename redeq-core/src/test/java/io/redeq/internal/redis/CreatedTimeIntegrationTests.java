package io.redeq.internal.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.JobView;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A payload record starts with the Redis time its job was scheduled at, in base 64
 * (lib/settings.lua). Every reader (find, the job pages, a claim, a hand-off) reads it,
 * and reads the decimal head of records that earlier builds wrote.
 */
@RedisTest
class CreatedTimeIntegrationTests {

	private static final int BUCKET = 11;

	private final ScriptFixture fixture;

	private final RedisJobStore store;

	private final RedisClient lettuce;

	CreatedTimeIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
		this.fixture = new ScriptFixture(lettuce);
		this.store = this.fixture.store;
	}

	@AfterEach
	void close() {
		this.fixture.close();
	}

	@Test
	void aScheduledJobsRecordStartsWithItsRedisTimeInSevenCharacters() {
		String id = this.fixture.idsInBucket("mail", "new-", BUCKET, 1).get(0);
		String jobKey = KeySpace.jobKey("mail", id);
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			long before = redisMillis(redis);
			this.fixture.redeq.client().schedule(Job.builder("mail").id(id).payload("p").maxAttempts(4).build());
			long after = redisMillis(redis);

			String record = redis.hget(this.fixture.keys.payloadKey(BUCKET), jobKey);
			assertThat(record).matches("[A-Za-z][0-9A-Za-z_-]{6};a4\\|\"p\"");
			long created = CreatedTime.ofRecord(record);
			assertThat(created).isBetween(before, after);

			assertThat(this.fixture.redeq.client().find("mail", id)).map(JobInfo::createdAt)
				.contains(Instant.ofEpochMilli(created));
			this.store.migrate(BUCKET, 100, false, "", 10_000, 0);
			ClaimedJob claimed = this.fixture.await(this.store.claim(BUCKET, "mail", 1, 30_000, "inst:c:1", 3))
				.jobs()
				.get(0);
			assertThat(claimed.createdAt()).isEqualTo(created);
			assertThat(claimed.settings().maxAttempts()).isEqualTo(4);
		}
	}

	@Test
	void aRecordWithTheDecimalHeadOfEarlierBuildsIsFoundListedClaimedAndHandedOver() {
		List<String> ids = this.fixture.idsInBucket("mail", "old-", BUCKET, 2);
		long created = 1_764_000_000_000L;
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			for (String id : ids) {
				this.fixture.redeq.client().schedule(Job.builder("mail").id(id).payload("new").build());
				// As builds before the base-64 head wrote it: decimal ms,
				// settings, trace context.
				redis.hset(this.fixture.keys.payloadKey(BUCKET), KeySpace.jobKey("mail", id),
						created + ";a5 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01|\"old\"");
			}
		}
		String claimedId = ids.get(0);
		String handedId = ids.get(1);

		assertThat(this.fixture.redeq.client().find("mail", claimedId)).map(JobInfo::createdAt)
			.contains(Instant.ofEpochMilli(created));
		assertThat(this.fixture.redeq.admin().jobs("mail", JobState.DELAYED, 0, 10)).hasSize(2)
			.allSatisfy((view) -> assertThat(view.createdAt()).isEqualTo(Instant.ofEpochMilli(created)))
			.extracting(JobView::payload)
			.containsOnly("\"old\"");

		// One slot offered: one job is handed over, the other goes READY and is claimed.
		List<MigrateResult> handOff = new ArrayList<>();
		this.store.migrateDue(new int[] { BUCKET }, 100,
				List.of(List.of(new SlotOffer("mail", 1, 30_000, "inst:c:2", 3))), (b, result) -> handOff.add(result));
		ClaimedJob handed = handOff.get(0).handedOver().get(0).get(0);
		ClaimedJob claimed = this.fixture.await(this.store.claim(BUCKET, "mail", 1, 30_000, "inst:c:3", 3))
			.jobs()
			.get(0);

		assertThat(List.of(handed, claimed)).extracting(ClaimedJob::id).containsExactlyInAnyOrder(claimedId, handedId);
		assertThat(List.of(handed, claimed)).allSatisfy((job) -> {
			assertThat(job.createdAt()).isEqualTo(created);
			assertThat(job.settings().maxAttempts()).isEqualTo(5);
			assertThat(job.traceContext()).isEqualTo("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
			assertThat(job.payload()).isEqualTo("\"old\"");
		});
	}

	private static long redisMillis(RedisCommands<String, String> redis) {
		List<String> time = redis.time();
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

}
