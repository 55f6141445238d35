package io.redeq.internal;

import java.time.Duration;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Checks of user input, each failing with an {@link IllegalArgumentException} that names
 * the value and what is allowed.
 */
public final class Validate {

	/**
	 * Topics end up in key names and are read back from them, so ':' and braces are out.
	 */
	private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._\\-]{0,99}");

	private static final int MAX_ID_LENGTH = 200;

	private Validate() {
	}

	public static String topic(@Nullable String topic) {
		if (topic == null || topic.isBlank()) {
			throw new IllegalArgumentException("topic must not be null or blank, but was " + quote(topic));
		}
		if (!TOPIC.matcher(topic).matches()) {
			throw new IllegalArgumentException("topic " + quote(topic)
					+ " is malformed: use 1 to 100 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit");
		}
		return topic;
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
		return delay;
	}

	public static Duration positive(String name, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be a positive duration, but was " + value);
		}
		return value;
	}

	public static Duration positiveOrZero(String name, @Nullable Duration value) {
		if (value == null || value.isNegative()) {
			throw new IllegalArgumentException(name + " must be zero or a positive duration, but was " + value);
		}
		return value;
	}

	public static int atLeast(String name, int value, int min) {
		if (value < min) {
			throw new IllegalArgumentException(name + " must be at least " + min + ", but was " + value);
		}
		return value;
	}

	public static long atLeast(String name, long value, long min) {
		if (value < min) {
			throw new IllegalArgumentException(name + " must be at least " + min + ", but was " + value);
		}
		return value;
	}

	public static int powerOfTwo(String name, int value, int max) {
		if (value < 1 || value > max || Integer.bitCount(value) != 1) {
			throw new IllegalArgumentException(
					name + " must be a power of two between 1 and " + max + ", but was " + value);
		}
		return value;
	}

	private static String quote(@Nullable String value) {
		return (value != null) ? "'" + value + "'" : "null";
	}

}
