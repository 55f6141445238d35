package io.redeq.benchmark;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LatenessWorkloadTests {

	@Test
	void aLatenessRunWaitsForABacklogAsLongAsItsProducersRanBeyondTheDelayAndHalfAMinute() {
		LatenessWorkload.Shape shape = new LatenessWorkload.Shape("W3b", 20_000, 8, 100, 500);

		assertThat(LatenessWorkload.drainLimit(shape, 30)).isEqualTo(Duration.ofMillis(60_500));
		assertThat(LatenessWorkload.drainLimit(shape, 39.2)).isEqualTo(Duration.ofMillis(70_500));
	}

}
