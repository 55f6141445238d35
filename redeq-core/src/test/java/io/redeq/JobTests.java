package io.redeq;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link Job}: its builder checks the due time with the same rule, and the same
 * exception, as every other way of scheduling.
 */
class JobTests {

	@Test
	void missingDueAtOrDelayIsRefusedNamingTheTopic() {
		assertThatIllegalArgumentException().isThrownBy(() -> Job.builder("t").dueAt(null))
			.withMessage("dueAt of a job in topic 't' must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> Job.builder("t").delay(null))
			.withMessage("delay of a job in topic 't' must not be null");
	}

	@Test
	void dueTimesRedisCannotHoldAreRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Job.builder("t").dueAt(Instant.parse("1969-12-31T23:59:59Z")))
			.withMessageContaining("must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z");
		assertThatIllegalArgumentException().isThrownBy(() -> Job.builder("t").delay(Duration.ofSeconds(-1)))
			.withMessageContaining("must not be negative");
	}

	@Test
	void delayAndDueAtReplaceEachOther() {
		Instant at = Instant.parse("2030-01-01T00:00:00Z");
		Job due = Job.builder("t").delay(Duration.ofMinutes(1)).dueAt(at).build();
		assertThat(due.dueAt()).isEqualTo(at);
		assertThat(due.delay()).isNull();
		Job delayed = Job.builder("t").dueAt(at).delay(Duration.ofMinutes(1)).build();
		assertThat(delayed.dueAt()).isNull();
		assertThat(delayed.delay()).isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void perJobSettingsAreCheckedAtTheBuilderNamingTheValue() {
		assertThatIllegalArgumentException().isThrownBy(() -> Job.builder("t").priority(10))
			.withMessageContaining("priority")
			.withMessageContaining("10")
			.withMessageContaining("between 0 and 9");
		assertThatIllegalArgumentException().isThrownBy(() -> Job.builder("t").priority(-1))
			.withMessageContaining("-1");
		assertThatIllegalArgumentException().isThrownBy(() -> Job.builder("t").maxAttempts(0))
			.withMessageContaining("maxAttempts")
			.withMessageContaining("at least 1");
		assertThatIllegalArgumentException().isThrownBy(() -> Job.builder("t").timeout(Duration.ZERO))
			.withMessageContaining("timeout");
		Job job = Job.builder("t").timeout(Duration.ofSeconds(3)).maxAttempts(2).priority(7).build();
		assertThat(job.timeout()).isEqualTo(Duration.ofSeconds(3));
		assertThat(job.maxAttempts()).isEqualTo(2);
		assertThat(job.priority()).isEqualTo(7);
		assertThat(Job.builder("t").build().priority()).isZero();
	}

}
