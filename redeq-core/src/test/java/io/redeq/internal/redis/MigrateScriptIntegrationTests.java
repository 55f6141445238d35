package io.redeq.internal.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.Job;
import io.redeq.JobState;
import io.redeq.Redeq;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * migrate.lua on a real redis-server. Whether one job is due (the usual call, answered
 * from one read of the due set's first two entries) or more than a batch, it moves the
 * due jobs, no more than the batch, and reports the head that remains, from which the
 * migrator plans its next wake-up. Its hand-off: due jobs go straight IN_FLIGHT for an
 * offer, no more than its free slots; a second run under the same token (Lettuce sending
 * the script again after a reconnect) takes nothing more and answers with what the token
 * holds; where jobs already wait READY, an offer claims them first (nothing overtakes
 * them), then the due ones; and when nothing is due, an offer with a lead takes the jobs
 * due within it, leaving the others where they wait.
 */
@RedisTest
class MigrateScriptIntegrationTests {

	private static final int BATCH_BUCKET = 13;

	private final ScriptFixture fixture;

	private final Redeq producer;

	private final RedisJobStore store;

	MigrateScriptIntegrationTests(RedisClient lettuce) {
		this.fixture = new ScriptFixture(lettuce);
		this.producer = this.fixture.redeq;
		this.store = this.fixture.store;
	}

	@AfterEach
	void close() {
		this.fixture.close();
	}

	@Test
	void anOfferTakesDueJobsUpToItsSlotsAndTheRestGoReady() {
		List<String> ids = idsInBucket(3, 3);
		ids.forEach((id) -> this.producer.client().schedule(Job.builder("mail").id(id).payload(id).build()));

		MigrateResult result = migrate(3, new SlotOffer("mail", 2, 30_000, "inst:x:1", 3));

		assertThat(result.handedOver()).singleElement().satisfies((jobs) -> {
			assertThat(jobs).extracting(ClaimedJob::id).hasSize(2).isSubsetOf(ids);
			assertThat(jobs).allSatisfy((job) -> {
				assertThat(job.attempt()).isEqualTo(1);
				assertThat(job.token()).isEqualTo("inst:x:1");
				assertThat(job.payload()).isEqualTo("\"" + job.id() + "\"");
				assertThat(this.producer.client().find("mail", job.id()).orElseThrow().state())
					.isEqualTo(JobState.IN_FLIGHT);
			});
		});
		assertThat(result.readyByTopic()).containsEntry("mail", 1);
		assertThat(this.producer.admin().stats("mail").inFlight()).isEqualTo(2);
		assertThat(this.producer.admin().stats("mail").ready()).isEqualTo(1);
	}

	@Test
	void theSameTokenAgainTakesNothingMoreAndAnswersWithWhatItHolds() {
		List<String> ids = idsInBucket(5, 3);
		this.producer.client().schedule(Job.builder("mail").id(ids.get(0)).payload(1).build());
		MigrateResult first = migrate(5, new SlotOffer("mail", 4, 30_000, "inst:x:2", 3));
		this.producer.client().schedule(Job.builder("mail").id(ids.get(1)).payload(2).build());

		MigrateResult again = migrate(5, new SlotOffer("mail", 4, 30_000, "inst:x:2", 3));

		assertThat(first.handedOver().get(0)).extracting(ClaimedJob::id).containsExactly(ids.get(0));
		assertThat(again.handedOver().get(0)).extracting(ClaimedJob::id).containsExactly(ids.get(0));
		assertThat(again.handedOver().get(0)).extracting(ClaimedJob::attempt).containsExactly(1);
		assertThat(this.producer.client().find("mail", ids.get(1)).orElseThrow().state()).isEqualTo(JobState.READY);
	}

	@Test
	void anOfferBehindJobsWaitingReadyClaimsThemFirstAndThenTheDueOnes() {
		List<String> ids = idsInBucket(7, 3);
		Instant now = Instant.now();
		schedule(ids.get(0), now.minusSeconds(3));
		migrate(7); // no consumer idle: READY
		schedule(ids.get(1), now.minusSeconds(2));
		schedule(ids.get(2), now.minusSeconds(1));

		MigrateResult result = migrate(7, new SlotOffer("mail", 2, 30_000, "inst:x:3", 3));

		assertThat(result.handedOver().get(0)).extracting(ClaimedJob::id).containsExactly(ids.get(0), ids.get(1));
		assertThat(result.handedOver().get(0)).allSatisfy((job) -> {
			assertThat(job.attempt()).isEqualTo(1);
			assertThat(job.token()).isEqualTo("inst:x:3");
		});
		assertThat(this.producer.client().find("mail", ids.get(2)).orElseThrow().state()).isEqualTo(JobState.READY);
		assertThat(result.readyByTopic()).containsExactly(Map.entry("mail", 1));
		assertThat(this.producer.admin().stats("mail").inFlight()).isEqualTo(2);
		assertThat(this.producer.admin().stats("mail").ready()).isEqualTo(1);
	}

	@Test
	void anOfferThatTakesEveryJobMadeReadyLeavesNoTopicToSignal() {
		List<String> ids = idsInBucket(9, 2);
		Instant now = Instant.now();
		schedule(ids.get(0), now.minusSeconds(2));
		migrate(9);
		schedule(ids.get(1), now.minusSeconds(1));

		MigrateResult result = migrate(9, new SlotOffer("mail", 4, 30_000, "inst:x:4", 3));

		assertThat(result.handedOver().get(0)).extracting(ClaimedJob::id).containsExactly(ids.get(0), ids.get(1));
		assertThat(result.readyByTopic()).isEmpty();
		assertThat(this.producer.admin().stats("mail").ready()).isZero();
		assertThat(this.producer.admin().stats("mail").inFlight()).isEqualTo(2);
	}

	@Test
	void aJobWaitingReadyWithItsAttemptsUsedUpIsBuriedNotHandedOver() {
		List<String> ids = idsInBucket(11, 2);
		Instant now = Instant.now();
		schedule(ids.get(0), now.minusSeconds(2));
		MigrateResult first = migrate(11, new SlotOffer("mail", 1, 1, "inst:x:5", 1));
		assertThat(first.handedOver().get(0)).extracting(ClaimedJob::id).containsExactly(ids.get(0));
		// Its one-millisecond lease expires: the sweep puts it back READY with its
		// one attempt used.
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(sweep(11).reclaimed()).isEqualTo(1));
		schedule(ids.get(1), now.minusSeconds(1));

		MigrateResult result = migrate(11, new SlotOffer("mail", 4, 30_000, "inst:x:6", 1));

		assertThat(result.handedOver().get(0)).extracting(ClaimedJob::id).containsExactly(ids.get(1));
		assertThat(this.producer.client().find("mail", ids.get(0)).orElseThrow().state()).isEqualTo(JobState.DEAD);
	}

	@Test
	void aDueJobThatCannotBeHandedOverGivesItsSlotToTheNextCandidate() {
		List<String> ids = idsInBucket(12, 2);
		long now = System.currentTimeMillis();
		schedule(ids.get(0), Instant.ofEpochMilli(now - 1_000));
		ClaimedJob first = migrate(12, new SlotOffer("mail", 1, 30_000, "inst:x:10", 3)).handedOver().get(0).get(0);
		// Failed once and due again at once: with one attempt allowed it cannot
		// be handed over.
		assertThat(this.fixture.await(this.store.retry(first, 0, "boom"))).isPresent();
		schedule(ids.get(1), Instant.ofEpochMilli(now + 20_000));

		MigrateResult result = migrate(12, new SlotOffer("mail", 1, 30_000, "inst:x:11", 1, 60_000));

		assertThat(result.handedOver().get(0)).extracting(ClaimedJob::id).containsExactly(ids.get(1));
		assertThat(result.readyByTopic()).containsEntry("mail", 1);
		assertThat(this.producer.client().find("mail", ids.get(0)).orElseThrow().state()).isEqualTo(JobState.READY);
		assertThat(this.producer.client().find("mail", ids.get(1)).orElseThrow().state()).isEqualTo(JobState.IN_FLIGHT);
	}

	@Test
	void anOfferWithALeadTakesJobsDueWithinItWhenNothingIsDueAndLeavesTheRestWaiting() {
		List<String> ids = idsInBucket(15, 3);
		long now = System.currentTimeMillis();
		schedule(ids.get(0), Instant.ofEpochMilli(now + 20_000));
		schedule(ids.get(1), Instant.ofEpochMilli(now + 30_000));
		schedule(ids.get(2), Instant.ofEpochMilli(now + 7_200_000));

		MigrateResult early = migrate(15, new SlotOffer("mail", 1, 30_000, "inst:x:7", 3, 60_000));

		assertThat(early.handedOver().get(0)).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo(ids.get(0));
			assertThat(job.dueAt()).isEqualTo(now + 20_000);
			assertThat(job.dueAt()).isGreaterThan(early.now());
			assertThat(job.attempt()).isEqualTo(1);
		});
		assertThat(early.migrated()).isEqualTo(1);
		assertThat(early.nextDue()).as("the first job no offer took").isEqualTo(now + 30_000);
		assertThat(early.readyByTopic()).isEmpty();
		assertThat(this.producer.client().find("mail", ids.get(0)).orElseThrow().state()).isEqualTo(JobState.IN_FLIGHT);
		assertThat(this.producer.client().find("mail", ids.get(1)).orElseThrow().state()).isEqualTo(JobState.DELAYED);

		MigrateResult withoutLead = migrate(15, new SlotOffer("mail", 4, 30_000, "inst:x:8", 3));

		assertThat(withoutLead.handedOver().get(0)).isEmpty();
		assertThat(withoutLead.nextDue()).isEqualTo(now + 30_000);
		assertThat(this.producer.client().find("mail", ids.get(1)).orElseThrow().state()).isEqualTo(JobState.DELAYED);
		assertThat(this.producer.admin().stats("mail").delayed()).isEqualTo(2);
	}

	@Test
	void aCallThatFindsJobsDueAlsoHandsOverTheJobsDueWithinTheLeadAndRemovesBoth() {
		List<String> ids = idsInBucket(14, 4);
		long now = System.currentTimeMillis();
		schedule(ids.get(0), Instant.ofEpochMilli(now - 1_000));
		schedule(ids.get(1), Instant.ofEpochMilli(now + 20_000));
		schedule(ids.get(2), Instant.ofEpochMilli(now + 30_000));
		schedule(ids.get(3), Instant.ofEpochMilli(now + 7_200_000));

		MigrateResult late = migrate(14, new SlotOffer("mail", 2, 30_000, "inst:x:9", 3, 60_000));

		assertThat(late.handedOver().get(0)).extracting(ClaimedJob::id).containsExactly(ids.get(0), ids.get(1));
		assertThat(late.migrated()).isEqualTo(2);
		assertThat(late.nextDue()).as("the first job no offer took").isEqualTo(now + 30_000);
		assertThat(late.readyByTopic()).isEmpty();
		assertThat(this.producer.client().find("mail", ids.get(0)).orElseThrow().state()).isEqualTo(JobState.IN_FLIGHT);
		assertThat(this.producer.client().find("mail", ids.get(1)).orElseThrow().state()).isEqualTo(JobState.IN_FLIGHT);
		assertThat(this.producer.client().find("mail", ids.get(2)).orElseThrow().state()).isEqualTo(JobState.DELAYED);
		assertThat(this.producer.admin().stats("mail").delayed()).isEqualTo(2);
	}

	@Test
	void aCallCompletesTheFinishedJobsItCarriesOnlyWhileTheirTokensStillHoldThem() {
		List<String> ids = idsInBucket(7, 3);
		this.producer.client().schedule(Job.builder("mail").id(ids.get(0)).payload(0).build());
		this.producer.client().schedule(Job.builder("mail").id(ids.get(1)).payload(1).build());
		List<ClaimedJob> running = migrate(7, new SlotOffer("mail", 2, 30_000, "inst:x:8", 3)).handedOver().get(0);
		assertThat(running).hasSize(2);
		ClaimedJob finished = running.get(0);
		ClaimedJob claimedElsewhere = new ClaimedJob(7, running.get(1).jobKey(), "mail", running.get(1).id(), 1,
				running.get(1).createdAt(), running.get(1).dueAt(), running.get(1).payload(), "inst:other:1");
		this.producer.client().schedule(Job.builder("mail").id(ids.get(2)).payload(2).build());

		List<MigrateResult> results = new ArrayList<>();
		this.store.migrateDue(new int[] { 7 }, 100, List.of(List.of(new SlotOffer("mail", 2, 30_000, "inst:x:9", 3))),
				List.of(List.of(finished, claimedElsewhere)), (b, result) -> results.add(result));

		assertThat(results).singleElement().satisfies((result) -> {
			assertThat(result.completed()).containsExactly(true, false);
			assertThat(result.handedOver().get(0)).extracting(ClaimedJob::id).containsExactly(ids.get(2));
		});
		assertThat(this.producer.client().find("mail", finished.id())).isEmpty();
		assertThat(this.producer.client().find("mail", claimedElsewhere.id()).orElseThrow().state())
			.isEqualTo(JobState.IN_FLIGHT);
		assertThat(this.producer.admin().stats("mail").inFlight()).isEqualTo(2);
		assertThat(this.producer.admin().stats("mail").pending()).isEqualTo(2);

		// A call with nothing due to hand over still ends what it carries.
		results.clear();
		this.store.migrateDue(new int[] { 7 }, 100, List.of(List.of(new SlotOffer("mail", 2, 30_000, "inst:x:10", 3))),
				List.of(List.of(running.get(1))), (b, result) -> results.add(result));
		assertThat(results).singleElement().satisfies((result) -> {
			assertThat(result.completed()).containsExactly(true);
			assertThat(result.handedOver().get(0)).isEmpty();
		});
		assertThat(this.producer.client().find("mail", running.get(1).id())).isEmpty();
		assertThat(this.producer.admin().stats("mail").pending()).isEqualTo(1);
	}

	@Test
	void completionsRideOnlyOnACallWithOffers() {
		ClaimedJob job = new ClaimedJob(7, "mail:m-1", "mail", "m-1", 1, 0, 0, "1", "inst:x:1");
		assertThatIllegalArgumentException().isThrownBy(() -> this.store.migrateDue(new int[] { 7 }, 100,
				List.of(List.of()), List.of(List.of(job)), (b, result) -> {
				}))
			.withMessageContaining("1 came without one");
	}

	@Test
	void movesWhatIsDueUpToTheBatchAndReportsTheHeadLeft() {
		List<String> ids = idsInBucket(BATCH_BUCKET, 7);
		long now = System.currentTimeMillis();
		long later = now + 3_600_000;
		schedule(ids.get(0), Instant.ofEpochMilli(now - 3000));
		schedule(ids.get(1), Instant.ofEpochMilli(now - 2000));
		schedule(ids.get(5), Instant.ofEpochMilli(later));

		assertMigrates(1, 1, now - 2000, "two due, batch of one");
		assertMigrates(100, 1, later, "one due, a later head");
		assertMigrates(100, 0, later, "nothing due");

		schedule(ids.get(2), Instant.ofEpochMilli(now - 1000));
		schedule(ids.get(3), Instant.ofEpochMilli(now - 900));
		schedule(ids.get(4), Instant.ofEpochMilli(now - 800));
		assertMigrates(2, 2, now - 800, "three due, batch of two");
		assertMigrates(100, 1, later, "one due, a later head");
		assertThat(ids.subList(0, 5))
			.allSatisfy((id) -> assertThat(this.producer.client().find("mail", id).orElseThrow().state())
				.isEqualTo(JobState.READY));

		this.producer.client().cancel("mail", ids.get(5));
		assertMigrates(100, 0, -1, "an empty due set");
		schedule(ids.get(6), Instant.ofEpochMilli(now - 100));
		assertMigrates(100, 1, -1, "one due and nothing after it");
	}

	@Test
	void aCallThatFindsMoreDueThanItsFirstReadShowsStillMovesUpToTheBatch() {
		int bucket = 1;
		List<String> ids = idsInBucket(bucket, 21);
		long now = System.currentTimeMillis();
		long later = now + 3_600_000;
		for (int i = 0; i < 20; i++) {
			schedule(ids.get(i), Instant.ofEpochMilli(now - 5_000 + i));
		}
		schedule(ids.get(20), Instant.ofEpochMilli(later));

		MigrateResult first = this.store.migrate(bucket, 12, false, "", 10_000, 0);
		MigrateResult second = this.store.migrate(bucket, 12, false, "", 10_000, 0);

		assertThat(first.migrated()).as("a batch of twelve, more than the first read").isEqualTo(12);
		assertThat(first.nextDue()).as("the head left after twelve").isEqualTo(now - 5_000 + 12);
		assertThat(second.migrated()).as("the eight left, fewer than a batch").isEqualTo(8);
		assertThat(second.nextDue()).isEqualTo(later);
		assertThat(this.producer.admin().stats("mail").ready()).isEqualTo(20);
	}

	private void schedule(String id, Instant dueAt) {
		this.producer.client().schedule(Job.builder("mail").id(id).payload(id).dueAt(dueAt).build());
	}

	/**
	 * Migrates the batch bucket once, in batches of {@code batch}, and checks how many
	 * jobs moved and the due time of the head left.
	 */
	private void assertMigrates(int batch, int moved, long nextDue, String what) {
		MigrateResult result = this.store.migrate(BATCH_BUCKET, batch, false, "", 10_000, 0);
		assertThat(result.migrated()).as(what + ": jobs moved").isEqualTo(moved);
		assertThat(result.nextDue()).as(what + ": the head left").isEqualTo(nextDue);
	}

	private MigrateResult sweep(int bucket) {
		return this.store.migrate(bucket, 100, true, "", 10_000, 0);
	}

	private MigrateResult migrate(int bucket, SlotOffer... offers) {
		List<MigrateResult> results = new ArrayList<>();
		this.store.migrateDue(new int[] { bucket }, 100, List.of(List.of(offers)), (b, result) -> results.add(result));
		assertThat(results).hasSize(1);
		return results.get(0);
	}

	private List<String> idsInBucket(int bucket, int count) {
		return this.fixture.idsInBucket("mail", "m-", bucket, count);
	}

}
