package io.redeq.internal.redis;

/**
 * The created time at the head of a payload record (lib/settings.lua): epoch ms on the
 * Redis clock, in base 64 (digits {@code 0-9 A-Z a-z - _}, most significant first), or in
 * decimal in records written by builds before the base-64 head. A decimal time starts
 * with a digit; a base-64 time of any date after 1991 starts with a letter.
 */
final class CreatedTime {

	private static final String DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";

	private CreatedTime() {
	}

	/** The epoch ms of a record's created text. */
	static long parse(String text) {
		if (text.isEmpty()) {
			throw new IllegalArgumentException("A redeq payload record has no created time");
		}
		if (Character.isDigit(text.charAt(0))) {
			return Long.parseLong(text);
		}
		long ms = 0;
		for (int i = 0; i < text.length(); i++) {
			int digit = DIGITS.indexOf(text.charAt(i));
			if (digit < 0 || i >= 10) {
				throw new IllegalArgumentException("Not a redeq created time: '" + text + "'");
			}
			ms = ms * 64 + digit;
		}
		return ms;
	}

	/** The epoch ms of a value a script returned as a record's created text. */
	static long of(Object value) {
		return (value instanceof Number number) ? number.longValue() : parse(String.valueOf(value));
	}

	/** The created time at the head of a whole payload record. */
	static long ofRecord(String record) {
		int end = 0;
		while (end < record.length() && ";| ".indexOf(record.charAt(end)) < 0) {
			end++;
		}
		return parse(record.substring(0, end));
	}

	/** The text schedule.lua writes for {@code ms}; for tests and tools. */
	static String format(long ms) {
		if (ms < 0) {
			throw new IllegalArgumentException("A created time must not be negative: " + ms);
		}
		StringBuilder text = new StringBuilder();
		long rest = ms;
		do {
			text.insert(0, DIGITS.charAt((int) (rest % 64)));
			rest /= 64;
		}
		while (rest > 0);
		return text.toString();
	}

}
