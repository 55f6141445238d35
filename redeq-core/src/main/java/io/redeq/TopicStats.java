package io.redeq;

/**
 * Exact job counts of one topic, summed over all buckets.
 *
 * @param topic the topic
 * @param delayed jobs waiting for their due time (including retries waiting for their
 * backoff)
 * @param ready due jobs waiting for a consumer
 * @param inFlight jobs a handler is running
 * @param dead jobs whose attempts are used up, kept for inspection
 * @since 0.1.0
 */
public record TopicStats(String topic, long delayed, long ready, long inFlight, long dead) {

	/**
	 * Jobs that still have to run: delayed, ready and in flight; what {@code max-pending}
	 * limits.
	 * @return delayed, ready and in-flight jobs together
	 */
	public long pending() {
		return this.delayed + this.ready + this.inFlight;
	}

}
