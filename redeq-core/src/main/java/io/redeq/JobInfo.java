package io.redeq;

import java.time.Instant;

/**
 * A snapshot of one job, as returned by {@link RedeqClient#find(String, String)}.
 *
 * @param topic the job's topic
 * @param id the job's id, unique within its topic
 * @param state where the job is in its life
 * @param dueAt when the job is (or was) due, on the Redis server's clock
 * @param attempts how many times a handler has been given the job so far
 * @param createdAt when the job was first scheduled, on the Redis server's clock
 * @since 0.1.0
 */
public record JobInfo(String topic, String id, JobState state, Instant dueAt, int attempts, Instant createdAt) {
}
