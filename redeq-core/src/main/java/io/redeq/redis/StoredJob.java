package io.redeq.redis;

import java.time.Instant;

import io.redeq.JobInfo;
import io.redeq.JobState;

/**
 * A job as the find script read it from its bucket.
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
