package io.redeq.internal.consumer;

import java.util.List;

import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.RedisJobStore;

/**
 * What {@link HandBacks} needs from Redis: put claimed jobs of one bucket back to READY
 * and tell the topic's consumers so.
 */
@FunctionalInterface
interface JobReleases {

	/**
	 * Hands jobs of one bucket back to the head of their ready sets, then signals the
	 * bucket.
	 * @param notStarted whether their attempts are refunded
	 * @throws RuntimeException when Redis does not take them back
	 */
	void releaseAndSignal(String topic, int bucket, List<ClaimedJob> jobs, boolean notStarted);

	/** The store's release script and signal list. */
	static JobReleases of(RedisJobStore store) {
		return (topic, bucket, jobs, notStarted) -> {
			store.release(bucket, jobs, notStarted);
			store.signal(topic, bucket);
		};
	}

}
