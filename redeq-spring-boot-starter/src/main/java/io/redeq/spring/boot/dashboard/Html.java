package io.redeq.spring.boot.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * A growing HTML text with the few helpers the pages need. Every value from Redis or the
 * request goes through {@link #text} or {@link #attr}, which escape it: payloads and
 * error messages are written by applications and must never become markup.
 */
final class Html {

	private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'", Locale.ROOT)
		.withZone(ZoneOffset.UTC);

	private final StringBuilder out = new StringBuilder(8192);

	/** Appends markup written by the dashboard itself, as is. */
	Html raw(String markup) {
		this.out.append(markup);
		return this;
	}

	/** Appends text, escaped for element content. */
	Html text(@Nullable Object value) {
		this.out.append(escape(String.valueOf((value != null) ? value : "")));
		return this;
	}

	/** Appends {@code name="value"} with the value escaped, after a space. */
	Html attr(String name, @Nullable Object value) {
		this.out.append(' ')
			.append(name)
			.append("=\"")
			.append(escape(String.valueOf((value != null) ? value : "")))
			.append('"');
		return this;
	}

	/** A count with thousands separators. */
	Html count(long value) {
		return text(String.format(Locale.ROOT, "%,d", value));
	}

	/** A point in time: relative to now, the exact UTC time in its title. */
	Html time(@Nullable Instant instant, Instant now) {
		if (instant == null) {
			return raw("<span class=\"muted\">–</span>");
		}
		raw("<time").attr("datetime", instant.toString()).attr("title", TIME.format(instant)).raw(">");
		text(relative(instant, now));
		return raw("</time>");
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

	static String escape(String value) {
		StringBuilder escaped = new StringBuilder(value.length() + 16);
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			switch (c) {
				case '<' -> escaped.append("&lt;");
				case '>' -> escaped.append("&gt;");
				case '&' -> escaped.append("&amp;");
				case '"' -> escaped.append("&quot;");
				case '\'' -> escaped.append("&#39;");
				default -> escaped.append(c);
			}
		}
		return escaped.toString();
	}

	@Override
	public String toString() {
		return this.out.toString();
	}

}
