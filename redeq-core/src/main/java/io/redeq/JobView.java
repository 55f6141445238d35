package io.redeq;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One job as an operator sees it, payload included: what
 * {@link RedeqAdmin#jobs(String, JobState, int, int)} lists and
 * {@link RedeqAdmin#job(String, String)} finds. Times are on the Redis server's clock.
 *
 * @param topic the job's topic
 * @param id the job's id, unique within its topic
 * @param state where the job is in its life
 * @param dueAt when the job is (or was last) due
 * @param attempts how many times a handler has been given the job so far
 * @param createdAt when the job was first scheduled
 * @param payload the payload as JSON text
 * @param lastError why the last attempt failed, or why the job died; {@code null} if no
 * attempt failed
 * @param leaseDeadline for an IN_FLIGHT job, when its lease runs out unless the handler's
 * instance renews it; otherwise {@code null}
 * @param instance for an IN_FLIGHT job, the id of the instance whose handler holds it;
 * otherwise {@code null}
 * @since 0.1.0
 */
public record JobView(String topic, String id, JobState state, Instant dueAt, int attempts, Instant createdAt,
		String payload, @Nullable String lastError, @Nullable Instant leaseDeadline, @Nullable String instance) {
}
