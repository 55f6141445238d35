package io.redeq.internal;

import org.jspecify.annotations.Nullable;

/**
 * A setting or argument outside what redeq allows. Its parts stay apart so that an
 * integration can report them in its own terms: the Spring Boot starter turns them into
 * an {@code InvalidConfigurationPropertyValueException} for the property that set the
 * value, without reading the message.
 */
public final class InvalidValueException extends IllegalArgumentException {

	private final String name;

	private final @Nullable Object value;

	private final String reason;

	/**
	 * Creates an exception whose message joins the three parts.
	 * @param name what was set, such as {@code redeq.buckets} or {@code backoff.max}
	 * @param value the refused value
	 * @param reason what is allowed, phrased to follow the name ("must be at least 1")
	 */
	public InvalidValueException(String name, @Nullable Object value, String reason) {
		super(name + " " + reason + ", but was " + ((value instanceof CharSequence) ? "'" + value + "'" : value));
		this.name = name;
		this.value = value;
		this.reason = reason;
	}

	public String name() {
		return this.name;
	}

	public @Nullable Object value() {
		return this.value;
	}

	public String reason() {
		return this.reason;
	}

}
