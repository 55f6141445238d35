package io.redeq.redis;

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
				"{\"to\":\"a\"}", "mail:m-2", 3L, 1_699_999_000_000L, 1_700_000_006_000L, "x|y");
		ClaimResult result = ClaimResult.fromReply(reply, 5, "mail", "i1:ab:9");
		assertThat(result.now()).isEqualTo(1_700_000_010_000L);
		assertThat(result.remaining()).isEqualTo(7);
		assertThat(result.jobs()).containsExactly(
				new ClaimedJob(5, "mail:m-1", "mail", "m-1", 1, 1_700_000_000_000L, 1_700_000_005_000L,
						"{\"to\":\"a\"}", "i1:ab:9"),
				new ClaimedJob(5, "mail:m-2", "mail", "m-2", 3, 1_699_999_000_000L, 1_700_000_006_000L, "x|y",
						"i1:ab:9"));
	}

	@Test
	void anIdWithColonsKeepsThem() {
		List<Object> reply = List.of(1L, 0L, "mail:a:b", 1L, 0L, 0L, "{}");
		assertThat(ClaimResult.fromReply(reply, 0, "mail", "t").jobs()).singleElement()
			.satisfies((job) -> assertThat(job.id()).isEqualTo("a:b"));
	}

	@Test
	void nothingClaimed() {
		ClaimResult result = ClaimResult.fromReply(List.of(1_700_000_010_000L, 0L), 2, "mail", "t");
		assertThat(result.jobs()).isEmpty();
		assertThat(result.remaining()).isZero();
	}

}
