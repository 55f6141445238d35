package io.redeq.benchmark;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class OptionsTests {

	@Test
	void w3bRunsOnlyWhenAskedForOrWithFull() {
		assertThat(Options.parse().workloads).containsExactly("W1", "W1c", "W2", "W3", "W4", "W5");
		assertThat(Options.parse("--workloads", "w3b").workloads).containsExactly("W3b");
		assertThat(Options.parse("--full").workloads).contains("W3b", "W6");
	}

	@Test
	void w3bSchedulesTwentyThousandJobsASecondFromEightThreadsDueSoonAfter() {
		Options options = Options.parse();

		assertThat(options.rateB).isEqualTo(20_000);
		assertThat(options.producers(Options.W3B_PRODUCERS)).isEqualTo(8);
		assertThat(options.producers(Options.W1C_PRODUCERS)).isEqualTo(16);
		assertThat(options.delayMinMsB).isEqualTo(100);
		assertThat(options.delayMaxMsB).isEqualTo(500);
	}

	@Test
	void producersGivenOnTheCommandLineCountForW1cAndW3b() {
		Options options = Options.parse("--producers", "4", "--delay-ms-b", "50-80");

		assertThat(options.producers(Options.W3B_PRODUCERS)).isEqualTo(4);
		assertThat(options.producers(Options.W1C_PRODUCERS)).isEqualTo(4);
		assertThat(options.delayMinMsB).isEqualTo(50);
		assertThat(options.delayMaxMsB).isEqualTo(80);
	}

	@Test
	void aDelayRangeWhoseMinimumExceedsItsMaximumIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> Options.parse("--delay-ms-b", "500-100"))
			.withMessageContaining("--delay-ms-b");
		assertThatIllegalArgumentException().isThrownBy(() -> Options.parse("--delay-ms", "3000-1000"))
			.withMessageContaining("--delay-ms");
	}

}
