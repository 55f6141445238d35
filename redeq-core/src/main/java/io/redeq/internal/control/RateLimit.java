package io.redeq.internal.control;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.redeq.internal.InvalidValueException;

/**
 * At most {@code permits} job starts of a topic in any {@code window}, across every
 * instance; written {@code 100/1s} in configuration.
 *
 * @param permits job starts allowed per window
 * @param window the sliding window
 */
public record RateLimit(int permits, Duration window) {

	/** The most starts one window may allow: the limiter logs each grant in Redis. */
	public static final int MAX_PERMITS = 1_000_000;

	/** The longest window: a limiter's log lives in Redis for that long. */
	public static final Duration MAX_WINDOW = Duration.ofDays(1);

	private static final Pattern TEXT = Pattern.compile("\\s*(\\d{1,9})\\s*/\\s*(\\d{0,9})\\s*(ms|s|m|h|d|P\\S+)\\s*",
			Pattern.CASE_INSENSITIVE);

	private static final String FORMAT = "permits per window, such as 100/1s, 20/500ms or 1000/1m "
			+ "(units ms, s, m, h, d, or an ISO-8601 duration after the slash)";

	/**
	 * Checks the limits.
	 * @param permits job starts allowed per window, 1 to {@link #MAX_PERMITS}
	 * @param window the window, 1 ms to {@link #MAX_WINDOW}
	 */
	public RateLimit {
		if (permits < 1 || permits > MAX_PERMITS) {
			throw new InvalidValueException("rate limit permits", permits, "must be between 1 and " + MAX_PERMITS);
		}
		Objects.requireNonNull(window, "rate limit window must not be null");
		if (window.toMillis() < 1 || window.compareTo(MAX_WINDOW) > 0) {
			throw new InvalidValueException("rate limit window", window,
					"must be between 1ms and " + MAX_WINDOW.toHours() + "h");
		}
	}

	/**
	 * Reads {@code 100/1s}: permits, a slash, and a window of whole ms, s, m, h or d (the
	 * number may be left out for one unit: {@code 100/s}), or an ISO-8601 duration
	 * ({@code 100/PT1S}).
	 * @param text the limit as written
	 * @return the limit
	 * @throws IllegalArgumentException naming the text when it is malformed or out of
	 * range
	 */
	public static RateLimit parse(String text) {
		if (text == null) {
			throw new InvalidValueException("rate limit", null, "must be " + FORMAT);
		}
		Matcher matcher = TEXT.matcher(text);
		if (!matcher.matches()) {
			throw new InvalidValueException("rate limit", text, "must be " + FORMAT);
		}
		try {
			return new RateLimit(Integer.parseInt(matcher.group(1)), window(matcher.group(2), matcher.group(3)));
		}
		catch (InvalidValueException ex) {
			throw new InvalidValueException(ex.name(), text, ex.reason());
		}
		catch (DateTimeParseException | ArithmeticException ex) {
			throw new InvalidValueException("rate limit", text, "must be " + FORMAT);
		}
	}

	private static Duration window(String amount, String unit) {
		String lower = unit.toLowerCase(Locale.ROOT);
		if (lower.startsWith("p")) {
			if (!amount.isEmpty()) {
				throw new DateTimeParseException("a number before an ISO-8601 duration", unit, 0);
			}
			return Duration.parse(unit.toUpperCase(Locale.ROOT));
		}
		long n = amount.isEmpty() ? 1 : Long.parseLong(amount);
		return switch (lower) {
			case "ms" -> Duration.ofMillis(n);
			case "s" -> Duration.ofSeconds(n);
			case "m" -> Duration.ofMinutes(n);
			case "h" -> Duration.ofHours(n);
			default -> Duration.ofDays(n);
		};
	}

	@Override
	public String toString() {
		return this.permits + "/" + this.window.toMillis() + "ms";
	}

}
