package io.redeq.internal.consumer;

import io.redeq.internal.redis.RedisJobStore;

/**
 * What {@link LostClaims} needs from Redis: hand back the jobs a claim took under a
 * token, burning the token.
 */
@FunctionalInterface
interface ClaimReleases {

	/**
	 * Hands back the jobs held under {@code token} in {@code bucket}, attempts refunded.
	 * @return how many
	 * @throws io.redeq.RedeqException when Redis does not answer or refuses
	 */
	long releaseClaim(int bucket, String topic, String token);

	/** The store's release-claim script. */
	static ClaimReleases of(RedisJobStore store) {
		return store::releaseClaim;
	}

}
