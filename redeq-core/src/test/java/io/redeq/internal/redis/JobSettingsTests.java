package io.redeq.internal.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link JobSettings}: what a job stores for itself in its payload record, and
 * how it falls back to its subscription's settings.
 */
class JobSettingsTests {

	@Test
	void aJobThatSetsNothingStoresNothing() {
		assertThat(JobSettings.of(null, null, 0)).isSameAs(JobSettings.NONE);
		assertThat(JobSettings.NONE.encode()).isEmpty();
		assertThat(JobSettings.decode("")).isEqualTo(JobSettings.NONE);
	}

	@Test
	void storesOnlyWhatIsSetAndReadsItBack() {
		JobSettings all = JobSettings.of(Duration.ofSeconds(30), 5, 9);
		assertThat(all.encode()).isEqualTo(";t30000;a5;p9");
		assertThat(JobSettings.decode(all.encode())).isEqualTo(all);
		JobSettings priorityOnly = JobSettings.of(null, null, 4);
		assertThat(priorityOnly.encode()).isEqualTo(";p4");
		assertThat(JobSettings.decode(";p4")).isEqualTo(priorityOnly);
	}

	@Test
	void storesAVersionAfterTheSettingsAndReadsItBack() {
		JobSettings versioned = JobSettings.of(null, 3, 0).withVersion("Zq_4-x");
		assertThat(versioned.encode()).isEqualTo(";a3;vZq_4-x");
		assertThat(JobSettings.decode(versioned.encode())).isEqualTo(versioned);
		assertThat(JobSettings.NONE.withVersion("v1").encode()).isEqualTo(";vv1");
		assertThat(JobSettings.decode(";vv1").version()).isEqualTo("v1");
	}

	@Test
	void refusesAVersionTheRecordCouldNotHold() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobSettings.NONE.withVersion("a;p9"))
			.withMessageContaining("'a;p9'");
		assertThatIllegalArgumentException().isThrownBy(() -> JobSettings.NONE.withVersion("a b"));
		assertThatIllegalArgumentException().isThrownBy(() -> JobSettings.NONE.withVersion(""));
		assertThatIllegalArgumentException().isThrownBy(() -> JobSettings.NONE.withVersion("x".repeat(33)))
			.withMessageContaining("1 to 32");
	}

	@Test
	void skipsPartsALaterVersionMayAdd() {
		assertThat(JobSettings.decode(";x12;a3")).isEqualTo(new JobSettings(0, 3, 0));
	}

	@Test
	void theJobsOwnSettingsWinOverTheSubscriptions() {
		JobSettings own = JobSettings.of(Duration.ofMillis(250), 2, 0);
		assertThat(own.timeout(Duration.ofSeconds(30))).isEqualTo(Duration.ofMillis(250));
		assertThat(own.maxAttempts(25)).isEqualTo(2);
		assertThat(JobSettings.NONE.timeout(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(30));
		assertThat(JobSettings.NONE.maxAttempts(25)).isEqualTo(25);
	}

}
