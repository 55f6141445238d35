package io.redeq.internal;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Generates job ids: 128 random bits as 22 URL-safe characters, short because every
 * pending job carries its id in Redis several times. Public for the starter, which gives
 * a job scheduled inside a transaction its id before the job is sent.
 */
public final class JobIds {

	private static final char[] ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		.toCharArray();

	private JobIds() {
	}

	/** A new random id. */
	public static String next() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		long high = random.nextLong();
		long low = random.nextLong();
		char[] id = new char[22];
		for (int i = 0; i < 11; i++) {
			id[i] = ALPHABET[(int) (high & 63)];
			high >>>= 6;
			id[11 + i] = ALPHABET[(int) (low & 63)];
			low >>>= 6;
		}
		return new String(id);
	}

}
