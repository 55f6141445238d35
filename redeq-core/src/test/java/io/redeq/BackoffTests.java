package io.redeq;

import java.time.Duration;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import io.redeq.internal.InvalidValueException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link Backoff}: the wait after each attempt, its cap and its jitter, and the
 * values it refuses.
 */
class BackoffTests {

	@Test
	void waitsGrowByTheMultiplierUpToMax() {
		Backoff backoff = new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10), 0.0);
		assertThat(backoff.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
		assertThat(backoff.delayAfter(2)).isEqualTo(Duration.ofSeconds(2));
		assertThat(backoff.delayAfter(3)).isEqualTo(Duration.ofSeconds(4));
		assertThat(backoff.delayAfter(4)).isEqualTo(Duration.ofSeconds(8));
		assertThat(backoff.delayAfter(5)).isEqualTo(Duration.ofSeconds(10));
		assertThat(backoff.delayAfter(1_000)).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void attemptZeroOrBelowWaitsTheInitialDelay() {
		Backoff backoff = new Backoff(Duration.ofSeconds(1), 3.0, Duration.ofMinutes(1), 0.0);
		assertThat(backoff.delayAfter(0)).isEqualTo(Duration.ofSeconds(1));
		assertThat(backoff.delayAfter(-5)).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void multiplierOfOneWaitsTheSameEveryTime() {
		Backoff backoff = new Backoff(Duration.ofMillis(500), 1.0, Duration.ofMinutes(1), 0.0);
		assertThat(backoff.delayAfter(1)).isEqualTo(backoff.delayAfter(20)).isEqualTo(Duration.ofMillis(500));
	}

	@RepeatedTest(50)
	void jitterStaysWithinItsFractionAndNeverPassesMax() {
		Backoff backoff = new Backoff(Duration.ofSeconds(10), 2.0, Duration.ofSeconds(15), 0.2);
		assertThat(backoff.delayAfter(1)).isBetween(Duration.ofSeconds(8), Duration.ofSeconds(12));
		assertThat(backoff.delayAfter(2)).isBetween(Duration.ofSeconds(12), Duration.ofSeconds(15));
	}

	@Test
	void zeroInitialDelayRetriesAtOnce() {
		Backoff backoff = new Backoff(Duration.ZERO, 2.0, Duration.ZERO, 1.0);
		assertThat(backoff.delayAfter(3)).isEqualTo(Duration.ZERO);
	}

	@Test
	void refusesNonsenseNamingTheComponent() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Backoff(Duration.ofSeconds(1), 0.5, Duration.ofMinutes(1), 0.2))
			.withMessage("backoff.multiplier must be a finite number >= 1.0, but was 0.5");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Backoff(Duration.ofSeconds(1), Double.POSITIVE_INFINITY, Duration.ofMinutes(1), 0.2))
			.withMessageContaining("backoff.multiplier");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Backoff(Duration.ofSeconds(1), Double.NaN, Duration.ofMinutes(1), 0.2))
			.withMessageContaining("backoff.multiplier");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(1), 1.5))
			.withMessage("backoff.jitter must be between 0.0 and 1.0, but was 1.5");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Backoff(Duration.ofMinutes(2), 2.0, Duration.ofMinutes(1), 0.2))
			.withMessage("backoff.max must not be shorter than backoff.initial (PT2M), but was PT1M");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Backoff(Duration.ofSeconds(-1), 2.0, Duration.ofMinutes(1), 0.2))
			.withMessage("backoff.initial must be zero or a positive duration, but was PT-1S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofDays(365_251), 0.2))
			.withMessageStartingWith("backoff.max must be at most PT8766000H (1000 years)");
	}

	@Test
	void refusalNamesTheComponentSoIntegrationsCanMapIt() {
		assertThatExceptionOfType(InvalidValueException.class)
			.isThrownBy(() -> new Backoff(Duration.ofMinutes(2), 2.0, Duration.ofMinutes(1), 0.2))
			.satisfies((ex) -> {
				assertThat(ex.name()).isEqualTo("backoff.max");
				assertThat(ex.value()).isEqualTo(Duration.ofMinutes(1));
			});
	}

}
