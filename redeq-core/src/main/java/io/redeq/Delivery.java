package io.redeq;

import java.time.Instant;

/**
 * What a handler knows about the job it is running.
 *
 * @param id the job's id
 * @param topic the job's topic
 * @param attempt 1 on the first delivery, 2 on the first retry, and so on
 * @param dueAt when the job was due, on the Redis server's clock
 * @param createdAt when the job was first scheduled, on the Redis server's clock
 * @since 0.1.0
 */
public record Delivery(String id, String topic, int attempt, Instant dueAt, Instant createdAt) {
}
