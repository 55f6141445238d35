package io.redeq.internal.redis;

import org.jspecify.annotations.Nullable;

import io.redeq.Duplicate;

/**
 * One job to write with the schedule script.
 *
 * @param jobKey {@code topic:id}
 * @param payload JSON text
 * @param absolute {@code true} if {@code millis} is an epoch instant, {@code false} if it
 * is a delay from the Redis server's now
 * @param millis the instant or the delay
 * @param onDuplicate the duplicate policy
 * @param settings what the job sets for itself
 * @param traceContext the propagated trace context to store beside the payload (see
 * {@link io.redeq.internal.observation.TraceContext}), or {@code null} without tracing
 * @param attemptsUsed attempts the job already used elsewhere (0 for a new job): a job
 * restored from the starter's journal goes on counting from there. Written only when this
 * request stores the job.
 */
public record ScheduleRequest(String jobKey, String payload, boolean absolute, long millis, Duplicate onDuplicate,
		JobSettings settings, @Nullable String traceContext, int attemptsUsed) {

	/** The most attempts a restored job may carry (the script's limit). */
	public static final int MAX_ATTEMPTS_USED = 999_999_999;

	public ScheduleRequest {
		if (attemptsUsed < 0 || attemptsUsed > MAX_ATTEMPTS_USED) {
			throw new IllegalArgumentException("Attempts already used of job " + jobKey + " must be between 0 and "
					+ MAX_ATTEMPTS_USED + ", was " + attemptsUsed);
		}
	}

	/** A new job, that used no attempts yet. */
	public ScheduleRequest(String jobKey, String payload, boolean absolute, long millis, Duplicate onDuplicate,
			JobSettings settings, @Nullable String traceContext) {
		this(jobKey, payload, absolute, millis, onDuplicate, settings, traceContext, 0);
	}

	/** A job that sets nothing for itself, without trace context. */
	public ScheduleRequest(String jobKey, String payload, boolean absolute, long millis, Duplicate onDuplicate) {
		this(jobKey, payload, absolute, millis, onDuplicate, JobSettings.NONE, null);
	}

	public ScheduleRequest withTrace(@Nullable String traceContext) {
		return new ScheduleRequest(this.jobKey, this.payload, this.absolute, this.millis, this.onDuplicate,
				this.settings, traceContext, this.attemptsUsed);
	}

	/**
	 * The same job, restored with the attempts it already used.
	 * @param attemptsUsed attempts used before, 0 for none
	 * @return the request
	 */
	public ScheduleRequest withAttemptsUsed(int attemptsUsed) {
		return new ScheduleRequest(this.jobKey, this.payload, this.absolute, this.millis, this.onDuplicate,
				this.settings, this.traceContext, attemptsUsed);
	}

	String policyCode() {
		return switch (this.onDuplicate) {
			case REPLACE -> "R";
			case KEEP -> "K";
			case REJECT -> "J";
		};
	}

}
