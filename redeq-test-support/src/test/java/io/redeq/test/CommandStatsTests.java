package io.redeq.test;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Reads the calls of a command, not the rejected or failed calls that Redis 7 prints
 * after them on the same line.
 */
class CommandStatsTests {

	@Test
	void readsTheCallsFieldNotTheFailedCalls() {
		assertThat(CommandStats
			.callsOf("cmdstat_zmscore:calls=4,usec=16,usec_per_call=4.00,rejected_calls=1,failed_calls=0"))
			.isEqualTo(4);
	}

	@Test
	void readsTheLinesOfRedisSixToo() {
		assertThat(CommandStats.callsOf("cmdstat_rpush:calls=12,usec=30,usec_per_call=2.50")).isEqualTo(12);
	}

	@Test
	void aLineWithoutCallsIsAnError() {
		assertThatIllegalStateException().isThrownBy(() -> CommandStats.callsOf("cmdstat_rpush:usec=30"))
			.withMessageContaining("cmdstat_rpush:usec=30");
	}

}
