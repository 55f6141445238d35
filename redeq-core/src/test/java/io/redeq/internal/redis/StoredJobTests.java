package io.redeq.internal.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.redeq.JobState;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link StoredJob#fromReply}, with replies shaped as find.lua returns them.
 */
class StoredJobTests {

	@Test
	void readsStateCreatedDueAttemptsAndPayload() {
		List<Object> reply = List.of("I", 1_700_000_000_000L, 1_700_000_005_000L, 2L, "{\"n\":1}");
		assertThat(StoredJob.fromReply("order.timeout:o-1", reply)).contains(new StoredJob("order.timeout", "o-1",
				JobState.IN_FLIGHT, 2, 1_700_000_000_000L, 1_700_000_005_000L, "{\"n\":1}"));
	}

	@Test
	void everyStateCode() {
		assertThat(List.of("D", "R", "I", "X"))
			.map((code) -> StoredJob.fromReply("t:1", List.of(code, 0L, 0L, 0L, "{}")).orElseThrow().state())
			.containsExactly(JobState.DELAYED, JobState.READY, JobState.IN_FLIGHT, JobState.DEAD);
		assertThatIllegalStateException().isThrownBy(() -> StoredJob.fromReply("t:1", List.of("Q", 0L, 0L, 0L, "{}")))
			.withMessageContaining("'Q'");
	}

	@Test
	void unknownJobIsEmpty() {
		assertThat(StoredJob.fromReply("t:1", List.of())).isEmpty();
	}

}
