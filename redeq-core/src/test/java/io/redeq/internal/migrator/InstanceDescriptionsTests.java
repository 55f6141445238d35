package io.redeq.internal.migrator;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.redeq.InstanceInfo;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An instance's description: what it writes is what the others read, bounded in size, and
 * text that is not a description reads as nothing.
 */
class InstanceDescriptionsTests {

	private final Instant started = Instant.parse("2026-11-23T18:00:00.123Z");

	private final InstanceDescriptions descriptions = new InstanceDescriptions("inst-a", this.started);

	@Test
	void whatAnInstanceWritesIsWhatTheOthersRead() {
		String text = this.descriptions.describe(new int[] { 0, 1, 5 }, List
			.of(new InstanceInfo.Listener("sms", 2, true), new InstanceInfo.Listener("mail \"<x>\"", 3, false)));

		InstanceInfo read = InstanceDescriptions.read(text);

		assertThat(read).isNotNull();
		assertThat(read.instanceId()).isEqualTo("inst-a");
		assertThat(read.hostName()).isNotBlank();
		assertThat(read.startedAt()).isEqualTo(this.started);
		assertThat(read.ownedBuckets()).containsExactly(0, 1, 5);
		assertThat(read.listeners()).containsExactly(new InstanceInfo.Listener("mail \"<x>\"", 3, false),
				new InstanceInfo.Listener("sms", 2, true));
	}

	@Test
	void listsAtMostAHundredListenersAndAThousandBucketsInAboutTwentyKilobytes() {
		List<InstanceInfo.Listener> listeners = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			listeners.add(new InstanceInfo.Listener(String.format("t%03d-", i) + "x".repeat(95), 1000, false));
		}
		int[] buckets = new int[1024];
		for (int b = 0; b < buckets.length; b++) {
			buckets[b] = b;
		}

		String text = this.descriptions.describe(buckets, listeners);

		assertThat(text.length()).isLessThan(20_000);
		InstanceInfo read = InstanceDescriptions.read(text);
		assertThat(read.listeners()).hasSize(InstanceDescriptions.MAX_LISTENERS);
		assertThat(read.listeners().get(0).topic()).startsWith("t000-");
		assertThat(read.ownedBuckets()).hasSize(1024);
	}

	@Test
	void textThatIsNotADescriptionReadsAsNothing() {
		assertThat(InstanceDescriptions.read("not json {")).isNull();
	}

}
