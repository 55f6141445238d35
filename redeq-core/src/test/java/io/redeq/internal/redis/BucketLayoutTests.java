package io.redeq.internal.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When an instance still works on the bucket layout recorded for its prefix.
 */
class BucketLayoutTests {

	@Test
	void theRecordedCountWithNoChangeRunningIsRunnable() {
		assertThat(new BucketLayout(16, 0, 0).isRunnableWith(16)).isTrue();
		assertThat(new BucketLayout(16, 0, 2).isRunnableWith(16)).as("a change that came back to the count").isTrue();
	}

	@Test
	void noRecordedCountIsRunnable() {
		// As after Redis lost its data: the instance's layout is as good as any.
		assertThat(new BucketLayout(0, 0, 0).isRunnableWith(16)).isTrue();
	}

	@Test
	void anotherCountOrAChangeRunningIsNot() {
		assertThat(new BucketLayout(32, 0, 1).isRunnableWith(16)).isFalse();
		assertThat(new BucketLayout(16, 32, 1).isRunnableWith(16)).isFalse();
		assertThat(new BucketLayout(16, 16, 1).isRunnableWith(16)).as("even a change to its own count").isFalse();
	}

}
