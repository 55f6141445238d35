package io.redeq.redis;

import java.util.Map;

/**
 * What one run of the migrate script did on one bucket.
 *
 * @param now the Redis server's time when it ran, epoch ms
 * @param nextDue due time of the bucket's earliest delayed job, or -1
 * @param nextLeaseExpiry earliest lease deadline of the bucket's in-flight jobs, or -1
 * @param lockHeld whether the caller still holds the bucket's lock (it was renewed)
 * @param migrated due jobs moved to READY
 * @param reclaimed expired leases returned to READY
 * @param readyByTopic jobs made READY per topic (for waking that topic's consumers)
 */
public record MigrateResult(long now, long nextDue, long nextLeaseExpiry, boolean lockHeld, int migrated, int reclaimed,
		Map<String, Integer> readyByTopic) {

	/** Whether a full batch was moved, so more may be due right now. */
	public boolean mayHaveMore(int batchSize) {
		return this.migrated >= batchSize || this.reclaimed >= batchSize;
	}

}
