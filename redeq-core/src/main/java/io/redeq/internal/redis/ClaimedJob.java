package io.redeq.internal.redis;

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
 * (see {@link io.redeq.internal.observation.TraceContext}), or {@code null}
 */
public record ClaimedJob(int bucket, String jobKey, String topic, String id, int attempt, long createdAt, long dueAt,
		String payload, String token, JobSettings settings, @Nullable String traceContext) {

	/** A job that set nothing for itself, stored without trace context. */
	public ClaimedJob(int bucket, String jobKey, String topic, String id, int attempt, long createdAt, long dueAt,
			String payload, String token) {
		this(bucket, jobKey, topic, id, attempt, createdAt, dueAt, payload, token, JobSettings.NONE, null);
	}

	/**
	 * How long one priority level counts as waiting, as in the ready-set scores of
	 * {@code lib/settings.lua}.
	 */
	public static final long PRIORITY_STEP_MILLIS = 60_000;

	/**
	 * The job's score in its topic's ready set, as {@code ready_score} in
	 * {@code lib/settings.lua} computes it: claims take the lowest first, and a consumer
	 * compares the buckets of a topic by it.
	 * @return the due time less the priority's aging, with the priority in the fraction
	 */
	public double readyScore() {
		return readyScore(this.dueAt, this.settings.priority());
	}

	/**
	 * A ready-set score as {@code ready_score} in {@code lib/settings.lua} computes it.
	 * @param dueAt epoch ms
	 * @param priority 0 to 9
	 * @return the score
	 */
	public static double readyScore(long dueAt, int priority) {
		return (priority == 0) ? dueAt : dueAt - priority * PRIORITY_STEP_MILLIS + priority / 16.0;
	}

}
