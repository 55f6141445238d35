package io.redeq.internal.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.redeq.Duplicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ScheduleOutcome}'s parsers, with replies shaped as schedule.lua,
 * reschedule.lua and retry.lua return them.
 */
class ScheduleOutcomeTests {

	@Test
	void oneOutcomePerJobInRequestOrder() {
		List<Object> reply = List.of(-1L, 1_000L, 2L, "replaced", 6_000L, 3L, "kept", 0L, 4L, "rejected", "R", 5L,
				"running", 0L, 6L, "full", 100L);
		assertThat(ScheduleOutcome.fromScheduleReply(reply,
				requests(at(5_000), at(6_000), at(7_000), in(1), in(2), in(3))))
			.containsExactly(new ScheduleOutcome("new", "5000", false, 1_000L),
					new ScheduleOutcome("replaced", "6000", false, 1_000L),
					new ScheduleOutcome("kept", "0", false, 1_000L),
					new ScheduleOutcome("rejected", "R", false, 1_000L),
					new ScheduleOutcome("running", "0", false, 1_000L),
					new ScheduleOutcome("full", "100", false, 1_000L));
	}

	@Test
	void aJobWithoutATripleIsNewAndDueAtItsInstantOrAtTheCallsTimePlusItsDelay() {
		List<Object> reply = List.of(-1L, 1_000L);
		assertThat(ScheduleOutcome.fromScheduleReply(reply, requests(at(5_000), in(250)))).containsExactly(
				new ScheduleOutcome("new", "5000", false, 1_000L), new ScheduleOutcome("new", "1250", false, 1_000L));
	}

	@Test
	void onlyTheFirstWrittenJobWithTheEarliestDueTimeIsMarked() {
		List<Object> reply = List.of(5_000L, 1_000L, 1L, "kept", 0L, 4L, "replaced", 5_000L);
		assertThat(ScheduleOutcome.fromScheduleReply(reply, requests(at(5_000), at(7_000), in(4_000), at(5_000))))
			.extracting(ScheduleOutcome::earliest)
			.containsExactly(false, false, true, false);
	}

	@Test
	void aFullBucketWhosePendingCountEqualsTheEarliestDueTimeIsNotMarked() {
		List<Object> reply = List.of(100L, 0L, 1L, "full", 100L);
		assertThat(ScheduleOutcome.fromScheduleReply(reply, requests(at(100), at(100))))
			.extracting(ScheduleOutcome::earliest)
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

	private static List<ScheduleRequest> requests(ScheduleRequest... requests) {
		return List.of(requests);
	}

	private static ScheduleRequest at(long epochMillis) {
		return request(true, epochMillis);
	}

	private static ScheduleRequest in(long delayMillis) {
		return request(false, delayMillis);
	}

	private static ScheduleRequest request(boolean absolute, long millis) {
		return new ScheduleRequest("t:" + millis, "{}", absolute, millis, Duplicate.REPLACE);
	}

}
