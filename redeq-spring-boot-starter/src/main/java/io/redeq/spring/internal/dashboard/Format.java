package io.redeq.spring.internal.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * How the pages write numbers, durations and points in time: text for the templates,
 * which escape it.
 */
final class Format {

	private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'", Locale.ROOT)
		.withZone(ZoneOffset.UTC);

	private Format() {
	}

	/** A count with thousands separators. */
	static String count(long value) {
		return String.format(Locale.ROOT, "%,d", value);
	}

	/**
	 * A point in time for the {@code time} partial: relative to now, exact in its title.
	 */
	static Time time(@Nullable Instant instant, Instant now) {
		if (instant == null) {
			return new Time(false, "", "", "");
		}
		return new Time(true, instant.toString(), UTC.format(instant), relative(instant, now));
	}

	static String relative(Instant instant, Instant now) {
		Duration between = Duration.between(now, instant);
		if (between.abs().toMillis() < 1000) {
			return "just now";
		}
		String span = span(between.abs());
		return between.isNegative() ? span + " ago" : "in " + span;
	}

	/** A duration the way an operator reads it: the two largest units. */
	static String span(Duration duration) {
		long seconds = duration.toSeconds();
		if (seconds < 1) {
			return duration.toMillis() + "ms";
		}
		if (seconds < 60) {
			return seconds + "s";
		}
		if (seconds < 3600) {
			return units(seconds / 60, "m", seconds % 60, "s");
		}
		if (seconds < 86_400) {
			return units(seconds / 3600, "h", (seconds % 3600) / 60, "m");
		}
		return units(seconds / 86_400, "d", (seconds % 86_400) / 3600, "h");
	}

	/** "3m 5s", or "3m" when the smaller unit is zero. */
	private static String units(long large, String largeUnit, long small, String smallUnit) {
		return large + largeUnit + ((small > 0) ? " " + small + smallUnit : "");
	}

	/**
	 * A point in time as the {@code time} partial draws it.
	 *
	 * @param known whether there is one (else a dash)
	 * @param iso its ISO-8601 form, for the {@code datetime} attribute
	 * @param utc the exact UTC time, for the title
	 * @param relative relative to when the page was drawn ("3m ago")
	 */
	record Time(boolean known, String iso, String utc, String relative) {
	}

}
