package io.redeq.internal.control;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link RateLimit}: the {@code 100/1s} form of configuration and the limits,
 * with errors that name the value.
 */
class RateLimitTests {

	@Test
	void readsPermitsPerWindow() {
		assertThat(RateLimit.parse("100/1s")).isEqualTo(new RateLimit(100, Duration.ofSeconds(1)));
		assertThat(RateLimit.parse("20/500ms")).isEqualTo(new RateLimit(20, Duration.ofMillis(500)));
		assertThat(RateLimit.parse(" 1000 / 1m ")).isEqualTo(new RateLimit(1000, Duration.ofMinutes(1)));
		assertThat(RateLimit.parse("5/2h")).isEqualTo(new RateLimit(5, Duration.ofHours(2)));
		assertThat(RateLimit.parse("5/1d")).isEqualTo(new RateLimit(5, Duration.ofDays(1)));
		assertThat(RateLimit.parse("10/s")).isEqualTo(new RateLimit(10, Duration.ofSeconds(1)));
		assertThat(RateLimit.parse("10/PT0.25S")).isEqualTo(new RateLimit(10, Duration.ofMillis(250)));
		assertThat(RateLimit.parse("10/1S")).isEqualTo(new RateLimit(10, Duration.ofSeconds(1)));
	}

	@Test
	void malformedTextIsRefusedNamingItAndTheForm() {
		for (String bad : new String[] { "", "100", "100/", "/1s", "100/1x", "100 per second", "1.5/1s", "-1/1s",
				"100/1s/2", "100/1PT1S" }) {
			assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse(bad))
				.withMessageContaining("rate limit")
				.withMessageContaining("'" + bad + "'")
				.withMessageContaining("such as 100/1s");
		}
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse(null))
			.withMessageContaining("rate limit");
	}

	@Test
	void limitsOutOfRangeAreRefusedNamingTheValueAndTheLimit() {
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("0/1s"))
			.withMessage("rate limit permits must be between 1 and 1000000, but was '0/1s'");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("2000000/1s"))
			.withMessageContaining("between 1 and 1000000")
			.withMessageContaining("'2000000/1s'");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("10/0s"))
			.withMessage("rate limit window must be between 1ms and 24h, but was '10/0s'");
		assertThatIllegalArgumentException().isThrownBy(() -> RateLimit.parse("10/2d"))
			.withMessageContaining("between 1ms and 24h");
		assertThatIllegalArgumentException().isThrownBy(() -> new RateLimit(10, Duration.ofNanos(10)))
			.withMessageContaining("rate limit window");
	}

}
