package io.redeq.internal.control;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.internal.redis.RedisJobStore;

/**
 * One subscription's side of its topic's rate limit: asks Redis for permits before each
 * claim and gives back those the claim did not use. The limit is shared by every instance
 * through the topic's limiter keys (see {@code rate-grant.lua}); this class keeps no
 * count of its own.
 */
public final class StartLimiter {

	private static final Logger logger = LoggerFactory.getLogger(StartLimiter.class);

	private final RedisJobStore store;

	private final String topic;

	private final RateLimit limit;

	public StartLimiter(RedisJobStore store, String topic, RateLimit limit) {
		this.store = store;
		this.topic = topic;
		this.limit = limit;
	}

	/**
	 * Asks for up to {@code wanted} job starts.
	 * @param wanted the free slots to fill
	 * @param id new for each grant (the claim token)
	 * @return the grant; none when the window is full
	 */
	public Grant acquire(int wanted, String id) {
		long[] reply = this.store.grantStarts(this.topic, this.limit.permits(), this.limit.window().toMillis(), wanted,
				id);
		return new Grant(id, (int) reply[0], reply[1]);
	}

	/**
	 * Gives back the permits of a grant that its claim did not use; asynchronous, and a
	 * refund that fails only leaves the window with fewer starts than it allowed.
	 * @param grant the grant
	 * @param used the jobs the claim started
	 */
	public void release(Grant grant, int used) {
		int unused = grant.permits() - used;
		if (unused <= 0) {
			return;
		}
		try {
			this.store.refundStarts(this.topic, grant.id(), grant.permits(), unused).exceptionally((ex) -> {
				logger.debug("Could not give back {} unused permits of topic '{}'", unused, this.topic, ex);
				return 0L;
			});
		}
		catch (RuntimeException ex) {
			logger.debug("Could not give back {} unused permits of topic '{}'", unused, this.topic, ex);
		}
	}

	/**
	 * Permits granted for one claim.
	 *
	 * @param id the grant's id
	 * @param permits job starts granted, 0 when the window is full
	 * @param retryAfterMillis when fewer than wanted were granted, the ms until the
	 * oldest grant leaves the window
	 */
	public record Grant(String id, int permits, long retryAfterMillis) {
	}

}
