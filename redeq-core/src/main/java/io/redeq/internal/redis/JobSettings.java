package io.redeq.internal.redis;

import java.time.Duration;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * What one job sets for itself, over its subscription's settings: a handler timeout, a
 * number of attempts, a priority. Written once with the job, in its payload record after
 * the created time
 * ({@code <created>;t<timeout ms>;a<max attempts>;p<priority>;v<version>|<payload>}, each
 * part only when set), so a job that sets nothing stores and reads exactly what it did
 * before these settings existed.
 *
 * @param timeoutMillis the handler timeout in ms, 0 when the subscription's applies
 * @param maxAttempts deliveries before a failing job is DEAD, 0 when the subscription's
 * applies
 * @param priority 0 (default) to 9; see {@code lib/priority.lua}
 * @param version which version of the job this is, among the jobs scheduled under its id
 * over time, or {@code null}: set only when the starter's journal asks for it (see
 * {@link io.redeq.internal.schedule.JournalHooks#versions}), so that an outcome is
 * written to the journal row of the version that ran and never to the row of a newer
 * version that replaced it
 */
public record JobSettings(long timeoutMillis, int maxAttempts, int priority, @Nullable String version) {

	/** A job that sets nothing. */
	public static final JobSettings NONE = new JobSettings(0, 0, 0, null);

	/** The most characters of a {@link #version()}. */
	public static final int MAX_VERSION_LENGTH = 32;

	private static final Pattern VERSION = Pattern.compile("[A-Za-z0-9_-]{1," + MAX_VERSION_LENGTH + "}");

	public JobSettings {
		if (version != null && !VERSION.matcher(version).matches()) {
			throw new IllegalArgumentException("A job's version must be 1 to " + MAX_VERSION_LENGTH
					+ " letters, digits, '-' or '_', but was '" + version + "'");
		}
	}

	/**
	 * Settings without a version.
	 * @param timeoutMillis the handler timeout in ms, 0 when the subscription's applies
	 * @param maxAttempts the attempts, 0 when the subscription's apply
	 * @param priority 0 to 9
	 */
	public JobSettings(long timeoutMillis, int maxAttempts, int priority) {
		this(timeoutMillis, maxAttempts, priority, null);
	}

	/**
	 * The settings of a job as its builder left them.
	 * @param timeout the handler timeout, or {@code null}
	 * @param maxAttempts the attempts, or {@code null}
	 * @param priority the priority
	 * @return the settings
	 */
	public static JobSettings of(@Nullable Duration timeout, @Nullable Integer maxAttempts, int priority) {
		if (timeout == null && maxAttempts == null && priority == 0) {
			return NONE;
		}
		return new JobSettings((timeout != null) ? timeout.toMillis() : 0, (maxAttempts != null) ? maxAttempts : 0,
				priority);
	}

	/**
	 * The same settings for the given version of the job.
	 * @param version the version, or {@code null} for none
	 * @return the settings
	 */
	public JobSettings withVersion(@Nullable String version) {
		return new JobSettings(this.timeoutMillis, this.maxAttempts, this.priority, version);
	}

	/**
	 * The text stored between the created time and the payload; empty when nothing is
	 * set.
	 */
	String encode() {
		if (this.equals(NONE)) {
			return "";
		}
		StringBuilder text = new StringBuilder();
		if (this.timeoutMillis > 0) {
			text.append(";t").append(this.timeoutMillis);
		}
		if (this.maxAttempts > 0) {
			text.append(";a").append(this.maxAttempts);
		}
		if (this.priority > 0) {
			text.append(";p").append(this.priority);
		}
		if (this.version != null) {
			text.append(";v").append(this.version);
		}
		return text.toString();
	}

	/**
	 * Reads the text {@link #encode()} wrote; unknown parts are skipped, so a later
	 * version may add some.
	 */
	static JobSettings decode(String text) {
		if (text.isEmpty()) {
			return NONE;
		}
		long timeout = 0;
		int attempts = 0;
		int priority = 0;
		String version = null;
		for (String part : text.split(";")) {
			if (part.length() < 2) {
				continue;
			}
			String value = part.substring(1);
			switch (part.charAt(0)) {
				case 't' -> timeout = Long.parseLong(value);
				case 'a' -> attempts = Integer.parseInt(value);
				case 'p' -> priority = Integer.parseInt(value);
				case 'v' -> version = value;
				default -> {
				}
			}
		}
		return new JobSettings(timeout, attempts, priority, version);
	}

	/**
	 * The handler timeout for this job.
	 * @param subscription the subscription's timeout
	 * @return this job's timeout if it set one, else the subscription's
	 */
	public Duration timeout(Duration subscription) {
		return (this.timeoutMillis > 0) ? Duration.ofMillis(this.timeoutMillis) : subscription;
	}

	/**
	 * The attempts for this job.
	 * @param subscription the subscription's attempts
	 * @return this job's attempts if it set them, else the subscription's
	 */
	public int maxAttempts(int subscription) {
		return (this.maxAttempts > 0) ? this.maxAttempts : subscription;
	}

}
