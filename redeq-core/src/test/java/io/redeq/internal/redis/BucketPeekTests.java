package io.redeq.internal.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link BucketPeek#fromReply}, with replies shaped as peek.lua returns them.
 */
class BucketPeekTests {

	@Test
	void readsFourValuesPerBucketInTheOrderTheBucketsWereSent() {
		List<Object> reply = List.of(1_000L, 1L, 900L, -1L, -1L, 0L, -1L, 1_500L, 200L);
		assertThat(BucketPeek.fromReply(new int[] { 3, 11 }, reply)).containsExactly(
				new BucketPeek(3, 1_000L, true, 900L, -1L, -1L), new BucketPeek(11, 1_000L, false, -1L, 1_500L, 200L));
	}

	@Test
	void noBuckets() {
		assertThat(BucketPeek.fromReply(new int[0], List.of(1_000L))).isEmpty();
	}

}
