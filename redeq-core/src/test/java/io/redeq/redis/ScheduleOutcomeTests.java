package io.redeq.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ScheduleOutcome}'s parsers, with replies shaped as schedule.lua,
 * reschedule.lua and retry.lua return them.
 */
class ScheduleOutcomeTests {

	@Test
	void oneOutcomePerJobInRequestOrder() {
		List<Object> reply = List.of(-1L, "new", 5_000L, "replaced", 6_000L, "kept", 0L, "rejected", "R", "running", 0L,
				"full", 100L);
		assertThat(ScheduleOutcome.fromScheduleReply(reply)).containsExactly(new ScheduleOutcome("new", "5000", false),
				new ScheduleOutcome("replaced", "6000", false), new ScheduleOutcome("kept", "0", false),
				new ScheduleOutcome("rejected", "R", false), new ScheduleOutcome("running", "0", false),
				new ScheduleOutcome("full", "100", false));
	}

	@Test
	void onlyTheFirstWrittenJobWithTheEarliestDueTimeIsMarked() {
		List<Object> reply = List.of(5_000L, "kept", 0L, "new", 7_000L, "new", 5_000L, "replaced", 5_000L);
		assertThat(ScheduleOutcome.fromScheduleReply(reply)).extracting(ScheduleOutcome::earliest)
			.containsExactly(false, false, true, false);
	}

	@Test
	void aFullBucketWhosePendingCountEqualsTheEarliestDueTimeIsNotMarked() {
		List<Object> reply = List.of(100L, "full", 100L, "new", 100L);
		assertThat(ScheduleOutcome.fromScheduleReply(reply)).extracting(ScheduleOutcome::earliest)
			.containsExactly(false, true);
	}

	@Test
	void movedJobCarriesItsNewDueTime() {
		assertThat(ScheduleOutcome.fromMoveReply("retry", List.of(1L, 9_000L, 1L)))
			.contains(new ScheduleOutcome("retry", "9000", true));
		assertThat(ScheduleOutcome.fromMoveReply("rescheduled", List.of(1L, 9_000L, 0L)))
			.contains(new ScheduleOutcome("rescheduled", "9000", false));
	}

	@Test
	void jobThatCouldNotBeMovedIsEmpty() {
		assertThat(ScheduleOutcome.fromMoveReply("retry", List.of(0L, 0L, 0L))).isEmpty();
	}

}
