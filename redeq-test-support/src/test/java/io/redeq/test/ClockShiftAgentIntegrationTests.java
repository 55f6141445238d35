package io.redeq.test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Date;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A child JVM started with a clock offset sees every wall clock shifted by it, while its
 * monotonic clock (which timed waits use) stays real.
 */
class ClockShiftAgentIntegrationTests {

	@Test
	void everyWallClockOfTheChildIsShiftedAndItsTimedWaitsAreNot() {
		Duration offset = Duration.ofSeconds(-30);
		try (JavaProcess child = JavaProcess.startWithClockOffset(ClockReport.class, offset)) {
			String report = child.awaitLine((line) -> line.startsWith("CLOCKS"), Duration.ofSeconds(60));
			long now = System.currentTimeMillis();
			for (String clock : new String[] { "millis", "instant", "date", "clock", "localDateTime" }) {
				long seen = Long.parseLong(report.replaceAll(".* " + clock + "=(-?\\d+).*", "$1"));
				assertThat(seen - now).as(clock).isBetween(offset.toMillis() - 5000, offset.toMillis() + 5000);
			}
			long sleptMs = Long.parseLong(report.replaceAll(".* sleptMs=(\\d+).*", "$1"));
			assertThat(sleptMs).as("a 200 ms sleep, timed on the child's nanoTime").isBetween(190L, 5000L);
		}
	}

	@Test
	void aChildWithoutOffsetKeepsTheRealClock() {
		try (JavaProcess child = JavaProcess.start(ClockReport.class)) {
			String report = child.awaitLine((line) -> line.startsWith("CLOCKS"), Duration.ofSeconds(60));
			long seen = Long.parseLong(report.replaceAll(".* instant=(-?\\d+).*", "$1"));
			assertThat(seen - System.currentTimeMillis()).isBetween(-5000L, 5000L);
		}
	}

	@Test
	void anOffsetOfPartSecondsIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> JavaProcess.startWithClockOffset(ClockReport.class, Duration.ofMillis(1500)))
			.withMessageContaining("PT1.5S");
	}

	/** The child: prints what each wall clock says, and how long a sleep took. */
	public static final class ClockReport {

		private ClockReport() {
		}

		public static void main(String[] args) throws InterruptedException {
			long before = System.nanoTime();
			Thread.sleep(200); // measured, not waited on: the agent must not shift sleeps
			long sleptMs = (System.nanoTime() - before) / 1_000_000;
			System.out
				.println("CLOCKS millis=" + System.currentTimeMillis() + " instant=" + Instant.now().toEpochMilli()
						+ " date=" + new Date().getTime() + " clock=" + java.time.Clock.systemDefaultZone().millis()
						+ " localDateTime=" + LocalDateTime.now(ZoneOffset.UTC).toInstant(ZoneOffset.UTC).toEpochMilli()
						+ " sleptMs=" + sleptMs);
		}

	}

}
