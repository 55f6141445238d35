package io.redeq.benchmark;

/**
 * One job as every system under test gets it: a 22-character id (the job's index,
 * zero-padded, so ids are as long as redeq's generated ones and the index can be read
 * back), a payload and a due time in ms on the Redis clock.
 */
record BenchJob(String id, String payload, long dueAtMillis) {

	static final int ID_LENGTH = 22;

	private static final String ZEROS = "0".repeat(ID_LENGTH);

	static BenchJob of(int index, String payload, long dueAtMillis) {
		return new BenchJob(id(index), payload, dueAtMillis);
	}

	static String id(int index) {
		String digits = Integer.toString(index);
		return ZEROS.substring(digits.length()) + digits;
	}

	/** The index an id was made from, or -1 if it is not one of ours. */
	static int index(String id) {
		if (id.length() != ID_LENGTH) {
			return -1;
		}
		try {
			return Integer.parseInt(id);
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

}
