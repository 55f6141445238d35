package io.redeq.internal.redis;

import java.util.ArrayList;
import java.util.List;

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

	/** Values peek.lua returns per bucket, after {@code now}. */
	private static final int VALUES_PER_BUCKET = 4;

	/**
	 * Parses peek.lua's reply for the buckets whose keys it was sent, in that order: now,
	 * then per bucket 4 values: 1 if the lock is held (and renewed), earliest due ms,
	 * earliest lease deadline ms, earliest death ms (-1 when the index is empty).
	 */
	static List<BucketPeek> fromReply(int[] buckets, List<Object> reply) {
		long now = ScriptReply.number(reply.get(0));
		List<BucketPeek> peeks = new ArrayList<>(buckets.length);
		for (int i = 0; i < buckets.length; i++) {
			int base = 1 + i * VALUES_PER_BUCKET;
			peeks.add(new BucketPeek(buckets[i], now, ScriptReply.isOne(reply.get(base)),
					ScriptReply.number(reply.get(base + 1)), ScriptReply.number(reply.get(base + 2)),
					ScriptReply.number(reply.get(base + 3))));
		}
		return peeks;
	}

	/** Whether a migrate call would move, reclaim or drop anything now. */
	public boolean needsSweep(long deadRetentionMillis) {
		return (this.nextDue >= 0 && this.nextDue <= this.now)
				|| (this.nextLeaseExpiry >= 0 && this.nextLeaseExpiry <= this.now)
				|| (this.oldestDeath >= 0 && this.oldestDeath <= this.now - deadRetentionMillis);
	}

}
