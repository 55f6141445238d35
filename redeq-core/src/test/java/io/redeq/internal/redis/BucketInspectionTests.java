package io.redeq.internal.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.entry;

/**
 * Tests for {@link BucketInspection#fromReply}, with replies shaped as inspect.lua
 * returns them.
 */
class BucketInspectionTests {

	@Test
	void readsCountsThenOldestReadyPerTopic() {
		List<Object> reply = List.of(1_700_000_010_000L, 1_700_000_004_000L, 8L, "mail:D", 5L, "mail:R", 2L, "mail:I",
				1L, "mail:X", 0L, "sms:D", 0L, "sms:R", 0L, "sms:I", 0L, "sms:X", 3L, "mail", 1_700_000_001_000L);
		BucketInspection inspection = BucketInspection.fromReply(reply);
		assertThat(inspection.now()).isEqualTo(1_700_000_010_000L);
		assertThat(inspection.earliestDue()).isEqualTo(1_700_000_004_000L);
		assertThat(inspection.counts()).containsExactly(entry("mail:D", 5L), entry("mail:R", 2L), entry("mail:I", 1L),
				entry("mail:X", 0L), entry("sms:D", 0L), entry("sms:R", 0L), entry("sms:I", 0L), entry("sms:X", 3L));
		assertThat(inspection.oldestReadyDue()).containsExactly(entry("mail", 1_700_000_001_000L));
		assertThat(inspection.migrationLagMillis()).isEqualTo(6_000);
	}

	@Test
	void anEmptyBucketHasNoCountsAndNoLag() {
		BucketInspection inspection = BucketInspection.fromReply(List.of(1_700_000_010_000L, -1L, 0L));
		assertThat(inspection.counts()).isEmpty();
		assertThat(inspection.oldestReadyDue()).isEmpty();
		assertThat(inspection.migrationLagMillis()).isZero();
	}

	@Test
	void refusesTheTopicsAnswer() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BucketInspection.fromReply(List.of("topics", "mail", "sms")))
			.withMessageContaining("inspect.lua")
			.withMessageContaining("[mail, sms]");
	}

}
