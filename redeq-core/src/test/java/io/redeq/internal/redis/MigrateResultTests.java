package io.redeq.internal.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.entry;

/**
 * Tests for {@link MigrateResult#fromReply}, with replies shaped as migrate.lua returns
 * them.
 */
class MigrateResultTests {

	@Test
	void readsEveryPositionAndTheTopicsMadeReady() {
		List<Object> reply = List.of(1_700_000_000_500_250L, 1_700_000_060_000L, 1_700_000_030_000L, 1L, 3L, 2L, 0L, 0L,
				0L, "mail", 4L, "order.timeout", 1L);
		MigrateResult result = MigrateResult.fromReply(reply, 3, List.of(), 0);
		assertThat(result.now()).isEqualTo(1_700_000_000_500L);
		assertThat(result.microsIntoNow()).isEqualTo(250);
		assertThat(result.nextDue()).isEqualTo(1_700_000_060_000L);
		assertThat(result.nextLeaseExpiry()).isEqualTo(1_700_000_030_000L);
		assertThat(result.lockHeld()).isTrue();
		assertThat(result.migrated()).isEqualTo(3);
		assertThat(result.reclaimed()).isEqualTo(2);
		assertThat(result.readyByTopic()).containsExactly(entry("mail", 4), entry("order.timeout", 1));
		assertThat(result.recurringToRefill()).isEmpty();
	}

	@Test
	void plansToTheStartOfTheDueMillisecondFromWhereInItsMillisecondTheCallRan() {
		MigrateResult result = MigrateResult.fromReply(
				List.of(1_700_000_000_500_250L, 1_700_000_000_502L, -1L, 1L, 0L, 0L, 0L, 0L, 0L), 3, List.of(), 0);
		assertThat(result.nanosUntil(1_700_000_000_502L)).isEqualTo(1_750_000L);
		assertThat(result.nanosUntil(1_700_000_000_500L)).isZero();
		assertThat(result.nanosUntil(1_700_000_000_400L)).isZero();
	}

	@Test
	void readsTheRecurringJobsToRefillBeforeTheTopics() {
		List<Object> reply = List.of(1_700_000_000_500_000L, 1_700_000_001_000L, -1L, 1L, 1L, 0L, 2L, "report:daily",
				"report:hourly", 0L, 0L, "report", 1L);
		MigrateResult result = MigrateResult.fromReply(reply, 3, List.of(), 0);
		assertThat(result.recurringToRefill()).containsExactly("report:daily", "report:hourly");
		assertThat(result.readyByTopic()).containsExactly(entry("report", 1));
	}

	@Test
	void anIdleBucketHasNoNextTimesAndNoTopics() {
		MigrateResult result = MigrateResult
			.fromReply(List.of(1_700_000_000_500_000L, -1L, -1L, 0L, 0L, 0L, 0L, 0L, 0L), 3, List.of(), 0);
		assertThat(result.nextDue()).isEqualTo(-1);
		assertThat(result.nextLeaseExpiry()).isEqualTo(-1);
		assertThat(result.lockHeld()).isFalse();
		assertThat(result.readyByTopic()).isEmpty();
		assertThat(result.mayHaveMore(100)).isFalse();
	}

	@Test
	void readsTheJobsHandedToEachOfferInItsOrder() {
		SlotOffer mail = new SlotOffer("mail", 2, 30_000, "inst:abc:7", 3);
		SlotOffer sms = new SlotOffer("sms", 1, 60_000, "inst:def:2", 5);
		List<Object> reply = List.of(1_700_000_000_500_000L, -1L, -1L, 1L, 3L, 0L, 0L, 2L, 1L, "mail:m-1", 1L,
				1_699_999_000_000L, 1_700_000_000_400L, "\"hi\"", ";p2", "00-trace", 0L, 0L, "mail", 2L);
		MigrateResult result = MigrateResult.fromReply(reply, 5, List.of(mail, sms), 0);
		assertThat(result.handedOver()).hasSize(2);
		assertThat(result.handedOver().get(0)).singleElement().satisfies((job) -> {
			assertThat(job.bucket()).isEqualTo(5);
			assertThat(job.id()).isEqualTo("m-1");
			assertThat(job.topic()).isEqualTo("mail");
			assertThat(job.attempt()).isEqualTo(1);
			assertThat(job.createdAt()).isEqualTo(1_699_999_000_000L);
			assertThat(job.dueAt()).isEqualTo(1_700_000_000_400L);
			assertThat(job.payload()).isEqualTo("\"hi\"");
			assertThat(job.token()).isEqualTo("inst:abc:7");
			assertThat(job.traceContext()).isEqualTo("00-trace");
		});
		assertThat(result.handedOver().get(1)).isEmpty();
		assertThat(result.readyByTopic()).containsExactly(entry("mail", 2));
	}

	@Test
	void readsTheAnswerForEachCompletionCarriedBeforeTheTopics() {
		SlotOffer mail = new SlotOffer("mail", 2, 30_000, "inst:abc:7", 3);
		List<Object> reply = List.of(1_700_000_000_500_000L, -1L, -1L, 1L, 0L, 0L, 0L, 1L, 0L, 3L, 1L, 0L, 1L, "mail",
				1L);
		MigrateResult result = MigrateResult.fromReply(reply, 5, List.of(mail), 3);
		assertThat(result.completed()).containsExactly(true, false, true);
		assertThat(result.handedOver()).hasSize(1);
		assertThat(result.handedOver().get(0)).isEmpty();
		assertThat(result.readyByTopic()).containsExactly(entry("mail", 1));
	}

	@Test
	void refusesAReplyForOtherCompletionsThanCarried() {
		List<Object> reply = List.of(1_700_000_000_500_000L, -1L, -1L, 1L, 0L, 0L, 0L, 1L, 0L, 1L, 1L);
		assertThatIllegalStateException()
			.isThrownBy(() -> MigrateResult.fromReply(reply, 5, List.of(new SlotOffer("mail", 2, 30_000, "t", 3)), 2))
			.withMessageContaining("answered 1 completions of the 2");
	}

	@Test
	void refusesAReplyForOtherOffersThanSent() {
		List<Object> reply = List.of(1_700_000_000_500_000L, -1L, -1L, 1L, 0L, 0L, 0L, 0L, 0L);
		assertThatIllegalStateException()
			.isThrownBy(() -> MigrateResult.fromReply(reply, 5, List.of(new SlotOffer("mail", 2, 30_000, "t", 3)), 0))
			.withMessageContaining("answered 0 offers of the 1");
	}

	@Test
	void refusesTheTopicsAnswer() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> MigrateResult.fromReply(List.of("topics", "mail"), 3, List.of(), 0))
			.withMessageContaining("migrate.lua")
			.withMessageContaining("[mail]");
	}

}
