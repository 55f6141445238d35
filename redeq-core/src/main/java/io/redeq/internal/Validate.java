package io.redeq.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Checks of user input, each failing with an {@link IllegalArgumentException} that names
 * the value and what is allowed. The checks of settings throw its subclass
 * {@link InvalidValueException}, which keeps the name, the value and the reason apart.
 */
public final class Validate {

	/**
	 * Longest topic. Topics end up in key names and are read back from them, so ':' and
	 * braces are out ({@link #topicChar}).
	 */
	private static final int MAX_TOPIC_LENGTH = 100;

	private static final int MAX_ID_LENGTH = 200;

	/**
	 * Longest delay (and backoff) redeq accepts: far beyond any use, far below overflow.
	 */
	public static final Duration MAX_DELAY = Duration.ofDays(365_250);

	/**
	 * Latest due time: what the scripts can hold exactly (see prelude.lua's MAX_TIME).
	 */
	public static final Instant LATEST_DUE = Instant.parse("9999-12-31T23:59:59.999Z");

	private Validate() {
	}

	public static String topic(@Nullable String topic) {
		if (topic == null || topic.isBlank()) {
			throw new IllegalArgumentException("topic must not be null or blank, but was " + quote(topic));
		}
		if (!wellFormedTopic(topic)) {
			throw new IllegalArgumentException("topic " + quote(topic)
					+ " is malformed: use 1 to 100 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit");
		}
		return topic;
	}

	/**
	 * 1 to 100 of A-Z a-z 0-9 . _ -, starting with a letter or digit: checked by hand, as
	 * every schedule checks its topic and a regular expression costs a noticeable share
	 * of a single schedule's client time.
	 */
	private static boolean wellFormedTopic(String topic) {
		int length = topic.length();
		if (length > MAX_TOPIC_LENGTH || !letterOrDigit(topic.charAt(0))) {
			return false;
		}
		for (int i = 1; i < length; i++) {
			if (!topicChar(topic.charAt(i))) {
				return false;
			}
		}
		return true;
	}

	private static boolean letterOrDigit(char c) {
		return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
	}

	private static boolean topicChar(char c) {
		return letterOrDigit(c) || c == '.' || c == '_' || c == '-';
	}

	public static String id(String topic, @Nullable String id) {
		if (id == null || id.isEmpty()) {
			throw new IllegalArgumentException("job id in topic '" + topic + "' must not be null or empty");
		}
		if (id.length() > MAX_ID_LENGTH) {
			throw new IllegalArgumentException("job id in topic '" + topic + "' is " + id.length()
					+ " characters long; at most " + MAX_ID_LENGTH + " are allowed");
		}
		for (int i = 0; i < id.length(); i++) {
			char c = id.charAt(i);
			if (Character.isWhitespace(c) || Character.isISOControl(c)) {
				throw new IllegalArgumentException("job id " + quote(id) + " in topic '" + topic
						+ "' contains whitespace or a control character at index " + i + "; ids must not");
			}
			// An unpaired surrogate is not text: UTF-8 encodes it as '?', so two such ids
			// would name one job in Redis.
			if (Character.isHighSurrogate(c) ? (i + 1 >= id.length() || !Character.isLowSurrogate(id.charAt(i + 1)))
					: Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(id.charAt(i - 1)))) {
				throw new IllegalArgumentException("job id in topic '" + topic
						+ "' contains an unpaired UTF-16 surrogate at index " + i + "; ids must be valid Unicode text");
			}
		}
		return id;
	}

	public static Duration delay(String topic, @Nullable Duration delay) {
		if (delay == null) {
			throw new IllegalArgumentException("delay of a job in topic '" + topic + "' must not be null");
		}
		if (delay.isNegative()) {
			throw new IllegalArgumentException(
					"delay of a job in topic '" + topic + "' must not be negative, but was " + delay);
		}
		if (delay.compareTo(MAX_DELAY) > 0) {
			throw new IllegalArgumentException("delay of a job in topic '" + topic + "' must be at most " + MAX_DELAY
					+ " (1000 years), but was " + delay);
		}
		return delay;
	}

	/**
	 * A due instant redeq can store exactly: Redis scripts hold times as Lua doubles, so
	 * they must be whole milliseconds between the epoch and the year 9999.
	 */
	public static Instant dueAt(String topic, @Nullable Instant dueAt) {
		if (dueAt == null) {
			throw new IllegalArgumentException("dueAt of a job in topic '" + topic + "' must not be null");
		}
		if (dueAt.isBefore(Instant.EPOCH) || dueAt.isAfter(LATEST_DUE)) {
			throw new IllegalArgumentException("dueAt of a job in topic '" + topic + "' must be between "
					+ Instant.EPOCH + " and " + LATEST_DUE + ", but was " + dueAt);
		}
		return dueAt;
	}

	public static Duration positive(String name, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new InvalidValueException(name, value, "must be a positive duration");
		}
		return value;
	}

	public static Duration positiveOrZero(String name, @Nullable Duration value) {
		if (value == null || value.isNegative()) {
			throw new InvalidValueException(name, value, "must be zero or a positive duration");
		}
		return value;
	}

	/** A duration of at least {@code min}, a whole number of milliseconds. */
	public static Duration atLeast(String name, @Nullable Duration value, Duration min) {
		Duration positive = positive(name, value);
		if (positive.compareTo(min) < 0) {
			throw new InvalidValueException(name, value, "must be at least " + min.toMillis() + "ms");
		}
		return positive;
	}

	/** A duration no longer than {@code max}; {@code what} says what the limit is. */
	public static Duration atMost(String name, Duration value, Duration max, String what) {
		if (value.compareTo(max) > 0) {
			throw new InvalidValueException(name, value, "must be at most " + max + " (" + what + ")");
		}
		return value;
	}

	public static int atLeast(String name, int value, int min) {
		if (value < min) {
			throw new InvalidValueException(name, value, "must be at least " + min);
		}
		return value;
	}

	public static long atLeast(String name, long value, long min) {
		if (value < min) {
			throw new InvalidValueException(name, value, "must be at least " + min);
		}
		return value;
	}

	public static int between(String name, int value, int min, int max) {
		if (value < min || value > max) {
			throw new InvalidValueException(name, value, "must be between " + min + " and " + max);
		}
		return value;
	}

	public static double between(String name, double value, double min, double max) {
		if (!(value >= min && value <= max)) {
			throw new InvalidValueException(name, value, "must be between " + min + " and " + max);
		}
		return value;
	}

	public static int powerOfTwo(String name, int value, int max) {
		if (value < 1 || value > max || Integer.bitCount(value) != 1) {
			throw new InvalidValueException(name, value, "must be a power of two between 1 and " + max);
		}
		return value;
	}

	/** A name made of {@code pattern}; {@code allowed} says so in words. */
	public static String matches(String name, @Nullable String value, Pattern pattern, String allowed) {
		if (value == null || !pattern.matcher(value).matches()) {
			throw new InvalidValueException(name, value, "must be " + allowed);
		}
		return value;
	}

	private static String quote(@Nullable String value) {
		return (value != null) ? "'" + value + "'" : "null";
	}

}
