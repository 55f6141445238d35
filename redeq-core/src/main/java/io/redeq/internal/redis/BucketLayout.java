package io.redeq.internal.redis;

/**
 * The bucket layout a prefix's meta hash records.
 *
 * @param buckets the recorded bucket count, 0 if none is recorded yet
 * @param changingTo the count an unfinished change moves to, 0 if none runs
 * @param generation how many changes of the count were ever begun, 0 before the first
 */
public record BucketLayout(int buckets, int changingTo, long generation) {

	/**
	 * Whether an instance that runs on {@code instanceBuckets} buckets still works on
	 * this layout: no change has begun since, and the recorded count is its count (or
	 * none is recorded, as after Redis lost its data).
	 * @param instanceBuckets the count the instance runs on
	 * @return whether it works on this layout
	 */
	public boolean isRunnableWith(int instanceBuckets) {
		return this.changingTo == 0 && (this.buckets == 0 || this.buckets == instanceBuckets);
	}

}
