package io.redeq.internal.consumer;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link BucketHints}: each bucket at most once, oldest hint first.
 */
class BucketHintsTests {

	private final BucketHints hints = new BucketHints(16);

	private long now;

	@Test
	void startsEmpty() {
		assertThat(this.hints.isEmpty()).isTrue();
		assertThat(this.hints.poll()).isNull();
	}

	@Test
	void pollsInTheOrderHintsArrived() {
		this.hints.add(5);
		this.hints.add(2);
		this.hints.add(9);
		assertThat(this.hints.poll()).isEqualTo(5);
		assertThat(this.hints.poll()).isEqualTo(2);
		assertThat(this.hints.poll()).isEqualTo(9);
		assertThat(this.hints.isEmpty()).isTrue();
	}

	@Test
	void aRepeatedHintKeepsItsFirstPlace() {
		this.hints.add(5);
		this.hints.add(2);
		this.hints.add(5);
		assertThat(this.hints.poll()).isEqualTo(5);
		assertThat(this.hints.poll()).isEqualTo(2);
		assertThat(this.hints.poll()).isNull();
	}

	@Test
	void aPolledBucketCanBeHintedAgain() {
		this.hints.add(3);
		assertThat(this.hints.poll()).isEqualTo(3);
		this.hints.add(3);
		assertThat(this.hints.poll()).isEqualTo(3);
	}

	@Test
	void addAllQueuesEveryBucketOnceAfterThoseAlreadyHinted() {
		this.hints.add(2);
		this.hints.addAll(4);
		assertThat(this.hints.poll()).isEqualTo(2);
		assertThat(this.hints.poll()).isEqualTo(0);
		assertThat(this.hints.poll()).isEqualTo(1);
		assertThat(this.hints.poll()).isEqualTo(3);
		assertThat(this.hints.poll()).isNull();
	}

	@Test
	void aHeadIsUnknownUntilLearnedAndAnUnknownHeadElsewhereBlocksAnyBound() {
		BucketHints heads = new BucketHints(4, () -> this.now);
		assertThat(heads.bestHeadBesides(0)).isEqualTo(Double.POSITIVE_INFINITY);
		heads.add(1);
		assertThat(heads.bestHeadBesides(0)).isEqualTo(Double.NEGATIVE_INFINITY);
		assertThat(heads.bestHeadBesides(1)).isEqualTo(Double.POSITIVE_INFINITY);
		heads.learned(1, 100, heads.signals(1));
		heads.learned(2, 90, heads.signals(2));
		assertThat(heads.bestHeadBesides(0)).isEqualTo(90);
		assertThat(heads.bestHeadBesides(2)).isEqualTo(100);
		assertThat(heads.pollAll()).containsExactly(1, 2);
	}

	@Test
	void aSignalThatOvertookAReadKeepsTheHeadUnknown() {
		BucketHints heads = new BucketHints(4, () -> this.now);
		long before = heads.signals(3);
		heads.add(3);
		heads.learned(3, 50, before);
		assertThat(heads.bestHeadBesides(0)).isEqualTo(Double.NEGATIVE_INFINITY);
		heads.learned(3, 50, heads.signals(3));
		assertThat(heads.bestHeadBesides(0)).isEqualTo(50);
	}

	@Test
	void anEmptyBucketLeavesTheQueueAndAHeadReadLongAgoIsNoLongerTrusted() {
		BucketHints heads = new BucketHints(4, () -> this.now);
		heads.learned(1, Double.POSITIVE_INFINITY, heads.signals(1));
		assertThat(heads.isEmpty()).isTrue();
		heads.learned(2, 70, heads.signals(2));
		assertThat(heads.bestHeadBesides(0)).isEqualTo(70);
		this.now += BucketHints.TRUSTED_NANOS;
		assertThat(heads.bestHeadBesides(0)).isEqualTo(Double.NEGATIVE_INFINITY);
		assertThat(heads.pollAll()).containsExactly(2);
	}

	@Test
	void trustedHeadsAreGivenOnlyWhenEveryOneIsKnownAndFresh() {
		BucketHints heads = new BucketHints(4, () -> this.now);
		heads.learned(0, 30, heads.signals(0));
		heads.learned(1, Double.POSITIVE_INFINITY, heads.signals(1));
		assertThat(heads.trustedHeads(List.of(0, 1))).containsExactly(30, Double.POSITIVE_INFINITY);
		heads.add(2);
		assertThat(heads.trustedHeads(List.of(0, 2))).isNull();
		this.now += BucketHints.TRUSTED_NANOS;
		assertThat(heads.trustedHeads(List.of(0, 1))).isNull();
	}

}
