package io.redeq.redis;

/**
 * The head of one bucket's indexes, as the sweep saw it.
 *
 * @param bucket the bucket
 * @param now Redis time, epoch ms
 * @param held whether the caller holds the bucket's lock (it was renewed)
 * @param nextDue due time of the earliest delayed job, or -1
 * @param nextLeaseExpiry earliest lease deadline, or -1
 * @param oldestDeath when the longest-dead job died, or -1
 */
public record BucketPeek(int bucket, long now, boolean held, long nextDue, long nextLeaseExpiry, long oldestDeath) {

	/** Whether a migrate call would move, reclaim or drop anything now. */
	public boolean needsSweep(long deadRetentionMillis) {
		return (this.nextDue >= 0 && this.nextDue <= this.now)
				|| (this.nextLeaseExpiry >= 0 && this.nextLeaseExpiry <= this.now)
				|| (this.oldestDeath >= 0 && this.oldestDeath <= this.now - deadRetentionMillis);
	}

}
