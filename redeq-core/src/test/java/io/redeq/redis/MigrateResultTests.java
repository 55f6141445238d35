package io.redeq.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.entry;

/**
 * Tests for {@link MigrateResult#fromReply}, with replies shaped as migrate.lua returns
 * them.
 */
class MigrateResultTests {

	@Test
	void readsEveryPositionAndTheTopicsMadeReady() {
		List<Object> reply = List.of(1_700_000_000_500L, 1_700_000_060_000L, 1_700_000_030_000L, 1L, 3L, 2L, 0L, "mail",
				4L, "order.timeout", 1L);
		MigrateResult result = MigrateResult.fromReply(reply);
		assertThat(result.now()).isEqualTo(1_700_000_000_500L);
		assertThat(result.nextDue()).isEqualTo(1_700_000_060_000L);
		assertThat(result.nextLeaseExpiry()).isEqualTo(1_700_000_030_000L);
		assertThat(result.lockHeld()).isTrue();
		assertThat(result.migrated()).isEqualTo(3);
		assertThat(result.reclaimed()).isEqualTo(2);
		assertThat(result.readyByTopic()).containsExactly(entry("mail", 4), entry("order.timeout", 1));
		assertThat(result.recurringToRefill()).isEmpty();
	}

	@Test
	void readsTheRecurringJobsToRefillBeforeTheTopics() {
		List<Object> reply = List.of(1_700_000_000_500L, 1_700_000_001_000L, -1L, 1L, 1L, 0L, 2L, "report:daily",
				"report:hourly", "report", 1L);
		MigrateResult result = MigrateResult.fromReply(reply);
		assertThat(result.recurringToRefill()).containsExactly("report:daily", "report:hourly");
		assertThat(result.readyByTopic()).containsExactly(entry("report", 1));
	}

	@Test
	void anIdleBucketHasNoNextTimesAndNoTopics() {
		MigrateResult result = MigrateResult.fromReply(List.of(1_700_000_000_500L, -1L, -1L, 0L, 0L, 0L, 0L));
		assertThat(result.nextDue()).isEqualTo(-1);
		assertThat(result.nextLeaseExpiry()).isEqualTo(-1);
		assertThat(result.lockHeld()).isFalse();
		assertThat(result.readyByTopic()).isEmpty();
		assertThat(result.mayHaveMore(100)).isFalse();
	}

	@Test
	void refusesTheTopicsAnswer() {
		assertThatIllegalArgumentException().isThrownBy(() -> MigrateResult.fromReply(List.of("topics", "mail")))
			.withMessageContaining("migrate.lua")
			.withMessageContaining("[mail]");
	}

}
