package io.redeq;

import java.time.Instant;

/**
 * A job that will not run again unless it is requeued.
 *
 * @param topic the job's topic
 * @param id the job's id
 * @param payload the payload as JSON text
 * @param attempts how many times a handler was given the job
 * @param lastError why it died: the last exception's class and message, or the reason it
 * could not be delivered
 * @param diedAt when it died, on the Redis server's clock
 * @since 0.1.0
 */
public record DeadJob(String topic, String id, String payload, int attempts, String lastError, Instant diedAt) {
}
