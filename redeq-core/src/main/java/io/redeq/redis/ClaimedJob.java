package io.redeq.redis;

/**
 * A job the claim script put IN_FLIGHT for this consumer.
 *
 * @param bucket its bucket
 * @param jobKey {@code topic:id}
 * @param topic the topic
 * @param id the id
 * @param attempt 1 on the first delivery
 * @param createdAt epoch ms, Redis clock
 * @param dueAt epoch ms, Redis clock
 * @param payload JSON text
 * @param token the claim token that fences completion, retry, burial and lease renewal
 */
public record ClaimedJob(int bucket, String jobKey, String topic, String id, int attempt, long createdAt, long dueAt,
		String payload, String token) {
}
