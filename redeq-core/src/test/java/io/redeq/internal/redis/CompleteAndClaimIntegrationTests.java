package io.redeq.internal.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.Job;
import io.redeq.JobState;
import io.redeq.Redeq;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * complete.lua claiming in the same call on a real redis-server: the finished job is
 * gone, READY jobs fill the offered slots under the new token, and a second run under
 * that token (Lettuce sending the script again) completes nothing twice and claims
 * nothing more.
 */
@RedisTest
class CompleteAndClaimIntegrationTests {

	private static final int BUCKET = 9;

	private final ScriptFixture fixture;

	private final Redeq producer;

	private final RedisJobStore store;

	private final RedisClient lettuce;

	CompleteAndClaimIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
		this.fixture = new ScriptFixture(lettuce);
		this.producer = this.fixture.redeq;
		this.store = this.fixture.store;
	}

	@AfterEach
	void close() {
		this.fixture.close();
	}

	@Test
	void aCompletionFillsTheFreedSlotsWithReadyJobsOnce() {
		List<String> ids = idsInBucket(5);
		ids.forEach((id) -> this.producer.client().schedule(Job.builder("mail").id(id).payload(id).build()));
		this.store.migrate(BUCKET, 100, false, "", 10_000, 0);
		ClaimedJob first = await(this.store.claim(BUCKET, "mail", 1, 30_000, "inst:c:1", 3)).jobs().get(0);

		SlotOffer next = new SlotOffer("mail", 2, 30_000, "inst:c:2", 3);
		CompletionReply reply = await(this.store.completeAll(BUCKET, List.of(first), next));
		CompletionReply again = await(this.store.completeAll(BUCKET, List.of(first), next));

		assertThat(reply.completed()).containsExactly(true);
		assertThat(this.producer.client().find("mail", first.id())).isEmpty();
		assertThat(reply.claimed()).isNotNull();
		assertThat(reply.claimed().remaining()).isEqualTo(2);
		assertThat(reply.claimed().jobs()).hasSize(2).allSatisfy((job) -> {
			assertThat(job.token()).isEqualTo("inst:c:2");
			assertThat(job.attempt()).isEqualTo(1);
			assertThat(this.producer.client().find("mail", job.id()).orElseThrow().state())
				.isEqualTo(JobState.IN_FLIGHT);
		});
		assertThat(again.completed()).containsExactly(false);
		assertThat(again.claimed().jobs()).extracting(ClaimedJob::id)
			.containsExactlyInAnyOrderElementsOf(reply.claimed().jobs().stream().map(ClaimedJob::id).toList());
		assertThat(this.producer.admin().stats("mail").inFlight()).isEqualTo(2);
		assertThat(this.producer.admin().stats("mail").ready()).isEqualTo(2);
	}

	@Test
	void withoutAnOfferItOnlyCompletes() {
		List<String> ids = idsInBucket(2);
		ids.forEach((id) -> this.producer.client().schedule(Job.builder("mail").id(id).payload(id).build()));
		this.store.migrate(BUCKET, 100, false, "", 10_000, 0);
		ClaimedJob first = await(this.store.claim(BUCKET, "mail", 1, 30_000, "inst:c:3", 3)).jobs().get(0);

		CompletionReply reply = await(this.store.completeAll(BUCKET, List.of(first), null));

		assertThat(reply.completed()).containsExactly(true);
		assertThat(reply.claimed()).isNull();
		assertThat(this.producer.admin().stats("mail").ready()).isEqualTo(1);
		assertThat(this.producer.admin().stats("mail").inFlight()).isZero();
	}

	@Test
	void aCompletionUnderALeaseThatExpiredCompletesNothingAndTheNextClaimsCompletionLeavesNothingBehind() {
		String id = idsInBucket(1).get(0);
		this.producer.client().schedule(Job.builder("mail").id(id).payload(id).build());
		this.store.migrate(BUCKET, 100, false, "", 10_000, 0);
		ClaimedJob expired = await(this.store.claim(BUCKET, "mail", 1, 1, "inst:c:4", 3)).jobs().get(0);
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> this.store.migrate(BUCKET, 100, true, "", 10_000, 0).reclaimed() == 1);
		ClaimedJob again = await(this.store.claim(BUCKET, "mail", 1, 30_000, "inst:c:5", 3)).jobs().get(0);
		assertThat(again.attempt()).isEqualTo(2);

		assertThat(await(this.store.completeAll(BUCKET, List.of(expired), null)).completed()).containsExactly(false);
		assertThat(this.producer.client().find("mail", id).orElseThrow().state()).isEqualTo(JobState.IN_FLIGHT);
		assertThat(this.producer.admin().stats("mail").inFlight()).isEqualTo(1);

		assertThat(await(this.store.completeAll(BUCKET, List.of(again), null)).completed()).containsExactly(true);
		assertThat(this.producer.client().find("mail", id)).isEmpty();
		assertThat(this.producer.admin().stats("mail").inFlight()).isZero();
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			KeySpace keys = this.fixture.keys;
			assertThat(redis.exists(keys.payloadKey(BUCKET), keys.leaseKey(BUCKET), keys.errorKey(BUCKET)))
				.as("the expired lease's error and the job's records, gone with it")
				.isZero();
		}
	}

	@Test
	void eachJobOfACompletionOfSeveralIsAnsweredInItsOwnPlace() {
		List<String> ids = idsInBucket(3);
		ids.forEach((id) -> this.producer.client().schedule(Job.builder("mail").id(id).payload(id).build()));
		this.store.migrate(BUCKET, 100, false, "", 10_000, 0);
		ClaimedJob expired = await(this.store.claim(BUCKET, "mail", 1, 1, "inst:c:6", 3)).jobs().get(0);
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> this.store.migrate(BUCKET, 100, true, "", 10_000, 0).reclaimed() == 1);
		List<ClaimedJob> held = await(this.store.claim(BUCKET, "mail", 3, 30_000, "inst:c:7", 3)).jobs();
		assertThat(held).hasSize(3);
		List<ClaimedJob> others = held.stream().filter((job) -> !job.id().equals(expired.id())).toList();

		CompletionReply reply = await(this.store.completeAll(BUCKET, List.of(others.get(0), expired, others.get(1)),
				new SlotOffer("mail", 1, 30_000, "inst:c:8", 3)));

		assertThat(reply.completed()).containsExactly(true, false, true);
		assertThat(reply.claimed().jobs()).isEmpty();
		assertThat(this.producer.client().find("mail", others.get(0).id())).isEmpty();
		assertThat(this.producer.client().find("mail", others.get(1).id())).isEmpty();
		assertThat(this.producer.client().find("mail", expired.id()).orElseThrow().state())
			.isEqualTo(JobState.IN_FLIGHT);
		assertThat(this.producer.admin().stats("mail").inFlight()).isEqualTo(1);
	}

	private <T> T await(CompletionStage<T> stage) {
		return this.fixture.await(stage);
	}

	private List<String> idsInBucket(int count) {
		return this.fixture.idsInBucket("mail", "c-", BUCKET, count);
	}

}
