package io.redeq.internal.consumer;

import java.util.List;
import java.util.concurrent.CompletionStage;

import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.RedisJobStore;

/**
 * What {@link LeaseKeeper} needs from Redis: extend the leases of claimed jobs of one
 * bucket, answering per job whether the claim is still ours.
 */
@FunctionalInterface
interface LeaseRenewals {

	/**
	 * Renews the leases of jobs of one bucket, without waiting.
	 * @return per job, in order, whether the claim is still ours
	 * @throws RuntimeException when there is no connection to send it on
	 */
	CompletionStage<List<Boolean>> extend(int bucket, long leaseMillis, List<ClaimedJob> jobs);

	/** The store's extend script. */
	static LeaseRenewals of(RedisJobStore store) {
		return store::extend;
	}

}
