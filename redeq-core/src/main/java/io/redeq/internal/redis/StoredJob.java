package io.redeq.internal.redis;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

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

	/**
	 * Parses find.lua's reply about {@code jobKey}: an empty list if unknown; else state,
	 * created time ({@link CreatedTime}), due ms, attempts, payload.
	 */
	static Optional<StoredJob> fromReply(String jobKey, List<Object> reply) {
		if (reply.isEmpty()) {
			return Optional.empty();
		}
		String topic = KeySpace.topicOf(jobKey);
		return Optional.of(new StoredJob(topic, jobKey.substring(topic.length() + 1),
				stateOf(ScriptReply.text(reply.get(0)).charAt(0)), (int) ScriptReply.number(reply.get(3)),
				CreatedTime.of(reply.get(1)), ScriptReply.number(reply.get(2)), ScriptReply.text(reply.get(4))));
	}

	private static JobState stateOf(char code) {
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
