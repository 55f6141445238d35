package io.redeq.internal.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ClaimResult#fromReply}, with replies shaped as claim.lua returns them.
 */
class ClaimResultTests {

	@Test
	void readsEachClaimedJobAndKeepsTheClaimsBucketTopicAndToken() {
		List<Object> reply = List.of(1_700_000_010_000L, 7L, "mail:m-1", 1L, 1_700_000_000_000L, 1_700_000_005_000L,
				"{\"to\":\"a\"}", "", "", "mail:m-2", 3L, 1_699_999_000_000L, 1_700_000_006_000L, "x|y", "",
				"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
		ClaimResult result = ClaimResult.fromReply(reply, 5, "mail", "i1:ab:9");
		assertThat(result.now()).isEqualTo(1_700_000_010_000L);
		assertThat(result.remaining()).isEqualTo(7);
		assertThat(result.jobs()).containsExactly(
				new ClaimedJob(5, "mail:m-1", "mail", "m-1", 1, 1_700_000_000_000L, 1_700_000_005_000L,
						"{\"to\":\"a\"}", "i1:ab:9"),
				new ClaimedJob(5, "mail:m-2", "mail", "m-2", 3, 1_699_999_000_000L, 1_700_000_006_000L, "x|y",
						"i1:ab:9", JobSettings.NONE, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
	}

	@Test
	void anIdWithColonsKeepsThem() {
		List<Object> reply = List.of(1L, 0L, "mail:a:b", 1L, 0L, 0L, "{}", "", "");
		assertThat(ClaimResult.fromReply(reply, 0, "mail", "t").jobs()).singleElement()
			.satisfies((job) -> assertThat(job.id()).isEqualTo("a:b"));
	}

	@Test
	void readsTheSettingsAJobStoredForItself() {
		List<Object> reply = List.of(1L, 0L, "mail:m", 1L, 0L, 0L, "{}", ";t30000;a5;p3", "");
		assertThat(ClaimResult.fromReply(reply, 0, "mail", "t").jobs()).singleElement()
			.satisfies((job) -> assertThat(job.settings()).isEqualTo(new JobSettings(30_000, 5, 3)));
	}

	@Test
	void readsSettingsAndTraceContextStoredTogether() {
		List<Object> reply = List.of(1L, 0L, "mail:m", 1L, 0L, 0L, "{}", ";a2;p9",
				"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 vendor=a;b");
		assertThat(ClaimResult.fromReply(reply, 0, "mail", "t").jobs()).singleElement().satisfies((job) -> {
			assertThat(job.settings()).isEqualTo(new JobSettings(0, 2, 9));
			assertThat(job.traceContext())
				.isEqualTo("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 vendor=a;b");
		});
	}

	@Test
	void nothingClaimed() {
		ClaimResult result = ClaimResult.fromReply(List.of(1_700_000_010_000L, 0L), 2, "mail", "t");
		assertThat(result.jobs()).isEmpty();
		assertThat(result.remaining()).isZero();
	}

}
