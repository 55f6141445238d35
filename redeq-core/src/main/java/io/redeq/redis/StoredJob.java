package io.redeq.redis;

import java.time.Instant;

import io.redeq.JobInfo;
import io.redeq.JobState;

/**
 * A job record as stored in its bucket's jobs hash, read back on the Java side. The
 * format is the one the scripts' prelude writes:
 * {@code state|attempts|created|due|token|payload}.
 *
 * @param topic the topic
 * @param id the id
 * @param state the state
 * @param attempts deliveries so far
 * @param createdAt epoch ms on the Redis clock
 * @param dueAt epoch ms on the Redis clock
 * @param payload JSON text
 */
public record StoredJob(String topic, String id, JobState state, int attempts, long createdAt, long dueAt,
		String payload) {

	static StoredJob parse(String jobKey, String record) {
		int colon = jobKey.indexOf(':');
		String[] parts = record.split("\\|", 6);
		if (colon < 0 || parts.length < 6) {
			throw new IllegalStateException("Unreadable redeq job record for " + jobKey);
		}
		return new StoredJob(jobKey.substring(0, colon), jobKey.substring(colon + 1), stateOf(parts[0].charAt(0)),
				Integer.parseInt(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3]), parts[5]);
	}

	static JobState stateOf(char code) {
		return switch (code) {
			case 'D' -> JobState.DELAYED;
			case 'R' -> JobState.READY;
			case 'I' -> JobState.IN_FLIGHT;
			case 'X' -> JobState.DEAD;
			default -> throw new IllegalStateException("Unknown redeq job state '" + code + "'");
		};
	}

	public JobInfo toInfo() {
		return new JobInfo(this.topic, this.id, this.state, Instant.ofEpochMilli(this.dueAt), this.attempts,
				Instant.ofEpochMilli(this.createdAt));
	}

}
