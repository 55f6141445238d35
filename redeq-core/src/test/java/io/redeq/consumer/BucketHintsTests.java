package io.redeq.consumer;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link BucketHints}: each bucket at most once, oldest hint first.
 */
class BucketHintsTests {

	private final BucketHints hints = new BucketHints();

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

}
