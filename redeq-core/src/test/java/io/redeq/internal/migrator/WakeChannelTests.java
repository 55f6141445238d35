package io.redeq.internal.migrator;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link WakeChannel} makes of a message: anyone can publish on the channel, so only
 * a bucket of this engine may come out of it.
 */
class WakeChannelTests {

	@Test
	void aMessageNamesItsBucketWithOrWithoutTheDueTime() {
		assertThat(WakeChannel.bucketOf("7:1767225600000", 16)).isEqualTo(7);
		assertThat(WakeChannel.bucketOf("0", 16)).isZero();
	}

	@Test
	void aBucketThisEngineDoesNotHaveOrGarbageNamesNone() {
		assertThat(WakeChannel.bucketOf("16:1", 16)).isEqualTo(-1);
		assertThat(WakeChannel.bucketOf("-1:1", 16)).isEqualTo(-1);
		assertThat(WakeChannel.bucketOf("seven", 16)).isEqualTo(-1);
		assertThat(WakeChannel.bucketOf(":5", 16)).isEqualTo(-1);
		assertThat(WakeChannel.bucketOf("", 16)).isEqualTo(-1);
	}

}
