package io.redeq.redis;

import org.jspecify.annotations.Nullable;

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
 * @param settings what the job set for itself over the subscription's settings
 * @param traceContext the trace context stored when the job was scheduled with tracing on
 * (see {@link io.redeq.observation.TraceContext}), or {@code null}
 */
public record ClaimedJob(int bucket, String jobKey, String topic, String id, int attempt, long createdAt, long dueAt,
		String payload, String token, JobSettings settings, @Nullable String traceContext) {

	/** A job that set nothing for itself, stored without trace context. */
	public ClaimedJob(int bucket, String jobKey, String topic, String id, int attempt, long createdAt, long dueAt,
			String payload, String token) {
		this(bucket, jobKey, topic, id, attempt, createdAt, dueAt, payload, token, JobSettings.NONE, null);
	}

}
