package io.redeq.internal.recurring;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.redeq.Recurring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The next-tick computation of recurring jobs: Spring's cron rules in a fixed zone with
 * daylight saving time (Europe/Berlin: 2026-03-29 02:00 CET jumps to 03:00 CEST,
 * 2026-10-25 03:00 CEST falls back to 02:00 CET), and how a plan that ran dry catches up.
 */
class RecurringScheduleTests {

	private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

	@Test
	void aTickInsideTheSpringForwardGapIsNotInvented() {
		RecurringSchedule daily = cron("0 30 2 * * *");

		List<Long> ticks = daily.cronTicksAfter(at("2026-03-27T12:00:00Z"), at("2026-03-27T12:00:00Z"), 3);

		// 02:30 does not exist in Berlin on 2026-03-29: that day has no tick.
		assertThat(instants(ticks)).containsExactly(Instant.parse("2026-03-28T01:30:00Z"),
				Instant.parse("2026-03-30T00:30:00Z"), Instant.parse("2026-03-31T00:30:00Z"));
	}

	@Test
	void aTickInsideTheFallBackOverlapRunsOnce() {
		RecurringSchedule daily = cron("0 30 2 * * *");

		List<Long> ticks = daily.cronTicksAfter(at("2026-10-24T12:00:00Z"), at("2026-10-24T12:00:00Z"), 2);

		// 02:30 happens twice on 2026-10-25 (00:30Z in CEST, 01:30Z in CET): one tick.
		assertThat(instants(ticks)).containsExactly(Instant.parse("2026-10-25T00:30:00Z"),
				Instant.parse("2026-10-26T01:30:00Z"));
	}

	@Test
	void hourlyTicksFollowTheLocalClockAcrossBothTransitions() {
		RecurringSchedule hourly = cron("0 0 * * * *");

		assertThat(instants(hourly.cronTicksAfter(at("2026-03-29T00:30:00Z"), at("2026-03-29T00:30:00Z"), 2)))
			.containsExactly(Instant.parse("2026-03-29T01:00:00Z"), Instant.parse("2026-03-29T02:00:00Z"));
		// 02:00 comes twice on 2026-10-25: at 00:00Z (CEST) only, then 03:00 CET.
		assertThat(instants(hourly.cronTicksAfter(at("2026-10-24T23:30:00Z"), at("2026-10-24T23:30:00Z"), 3)))
			.containsExactly(Instant.parse("2026-10-25T00:00:00Z"), Instant.parse("2026-10-25T02:00:00Z"),
					Instant.parse("2026-10-25T03:00:00Z"));
	}

	@Test
	void aPlanThatRanDryKeepsItsFirstMissedTickAndContinuesAfterNow() {
		RecurringSchedule everyMinute = cron("0 * * * * *");

		List<Long> ticks = everyMinute.cronTicksAfter(at("2026-05-01T08:00:00Z"), at("2026-05-01T09:00:30Z"), 3);

		// The first missed tick stands for all of the hour's; the plan goes on after now.
		assertThat(instants(ticks)).containsExactly(Instant.parse("2026-05-01T08:01:00Z"),
				Instant.parse("2026-05-01T09:01:00Z"), Instant.parse("2026-05-01T09:02:00Z"));
	}

	@Test
	void theSignatureReadsBackAsTheSameSchedule() {
		RecurringSchedule schedule = cron("0 0 9 * * MON-FRI");

		assertThat(RecurringSchedule.parse(schedule.signature())).isEqualTo(schedule);
		RecurringSchedule every = RecurringSchedule.of(Recurring.builder("t").every(Duration.ofMinutes(5)).build());
		assertThat(RecurringSchedule.parse(every.signature())).isEqualTo(every);
		assertThat(every.signature()).isEqualTo("E|300000|Z|");
	}

	@Test
	void badDefinitionsAreRefusedNamingTheValue() {
		assertThatIllegalArgumentException().isThrownBy(() -> Recurring.builder("t").build())
			.withMessageContaining("exactly one of cron or every");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Recurring.builder("t").cron("* * * * * *").every(Duration.ofSeconds(5)).build())
			.withMessageContaining("both");
		assertThatIllegalArgumentException().isThrownBy(() -> Recurring.builder("t").cron("61 * * * * *").build())
			.withMessageContaining("'61 * * * * *'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Recurring.builder("t").every(Duration.ofMillis(500)).build())
			.withMessageContaining("PT0.5S");
		assertThatIllegalArgumentException().isThrownBy(() -> Recurring.builder("t").cron("0 0 0 30 2 *").build())
			.withMessageContaining("never ticks");
	}

	private static RecurringSchedule cron(String cron) {
		return RecurringSchedule.of(Recurring.builder("report").cron(cron).zone(BERLIN).build());
	}

	private static long at(String instant) {
		return Instant.parse(instant).toEpochMilli();
	}

	private static List<Instant> instants(List<Long> ticks) {
		return ticks.stream().map(Instant::ofEpochMilli).toList();
	}

}
