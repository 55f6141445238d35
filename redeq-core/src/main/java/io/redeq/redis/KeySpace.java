package io.redeq.redis;

import io.lettuce.core.cluster.SlotHash;

/**
 * The one place that names redeq's Redis keys.
 *
 * <p>
 * Layout: B global buckets, each a hash tag {@code {prefix:b:s}} holding every topic's
 * jobs of that bucket, with a ready list per topic inside the bucket. We chose global
 * buckets over per-topic shards ({@code {prefix:topic:b}}) because the migrator's idle
 * cost then depends on B only, not on B × topics: an instance with many quiet topics
 * still sweeps just its buckets. Exact per-topic stats come from each bucket's counts
 * hash instead of per-topic keys.
 *
 * <p>
 * Each bucket's tag carries a short suffix {@code s}, found by a deterministic search,
 * that puts bucket b's slot inside the b-th equal share of the 16384 cluster slots; so
 * the buckets of one topic split evenly over any cluster whose masters own contiguous,
 * equal slot ranges.
 */
public final class KeySpace {

	/** Redis Cluster's slot count. */
	private static final int SLOTS = SlotHash.SLOT_COUNT;

	private static final int MAX_SUFFIX_SEARCH = 1_000_000;

	private final String prefix;

	private final int buckets;

	private final String[] tags;

	private final String[][] bucketKeys;

	public KeySpace(String prefix, int buckets) {
		this.prefix = prefix;
		this.buckets = buckets;
		this.tags = new String[buckets];
		this.bucketKeys = new String[buckets][];
		for (int b = 0; b < buckets; b++) {
			String tag = "{" + prefix + ":" + b + ":" + suffixFor(prefix, b, buckets) + "}";
			this.tags[b] = tag;
			this.bucketKeys[b] = new String[] { tag + ":payload", tag + ":attempt", tag + ":due", tag + ":lease",
					tag + ":died", tag + ":error", tag + ":count", tag + ":lock" };
		}
	}

	private static int suffixFor(String prefix, int bucket, int buckets) {
		int from = (int) ((long) bucket * SLOTS / buckets);
		int to = (int) ((long) (bucket + 1) * SLOTS / buckets);
		for (int s = 0; s < MAX_SUFFIX_SEARCH; s++) {
			int slot = SlotHash.getSlot(prefix + ":" + bucket + ":" + s);
			if (slot >= from && slot < to) {
				return s;
			}
		}
		return 0; // unreachable for sane counts; an uneven spread is still correct
	}

	public String prefix() {
		return this.prefix;
	}

	public int buckets() {
		return this.buckets;
	}

	/** The hash tag of bucket b, braces included. */
	public String tag(int bucket) {
		return this.tags[bucket];
	}

	/**
	 * The fixed keys every job script gets, in the order the prelude expects: payload,
	 * attempt, due, lease, died, error, count, lock.
	 */
	String[] bucketKeys(int bucket) {
		return this.bucketKeys[bucket];
	}

	/** READY jobs of a topic in a bucket: a zset by due time. */
	public String readyKey(int bucket, String topic) {
		return this.tags[bucket] + ":ready:" + topic;
	}

	/**
	 * Requests of a bucket that a client may send twice (claim tokens, cancel request
	 * ids): a zset by the time they ran, kept briefly; only claim and cancel declare it,
	 * after the topic keys.
	 */
	String requestsKey(int bucket) {
		return this.tags[bucket] + ":requests";
	}

	/** DEAD jobs of a topic in a bucket: a zset by the time they died. */
	String deadKey(int bucket, String topic) {
		return this.tags[bucket] + ":dead:" + topic;
	}

	String payloadKey(int bucket) {
		return this.bucketKeys[bucket][0];
	}

	String attemptKey(int bucket) {
		return this.bucketKeys[bucket][1];
	}

	String dueKey(int bucket) {
		return this.bucketKeys[bucket][2];
	}

	String leaseKey(int bucket) {
		return this.bucketKeys[bucket][3];
	}

	String diedKey(int bucket) {
		return this.bucketKeys[bucket][4];
	}

	String errorKey(int bucket) {
		return this.bucketKeys[bucket][5];
	}

	String countKey(int bucket) {
		return this.bucketKeys[bucket][6];
	}

	String lockKey(int bucket) {
		return this.bucketKeys[bucket][7];
	}

	/**
	 * The keys of redeq's first data format in a bucket (jobs, delayed, inflight, dead,
	 * errors, counts), read once by {@link FormatUpgrade} and then deleted.
	 */
	String[] formatOneKeys(int bucket) {
		String tag = this.tags[bucket];
		return new String[] { tag + ":jobs", tag + ":delayed", tag + ":inflight", tag + ":dead", tag + ":errors",
				tag + ":counts" };
	}

	/** Per-topic keys of the first format: the ready list and the dead zset. */
	String[] formatOneTopicKeys(int bucket, String topic) {
		return new String[] { this.tags[bucket] + ":r:" + topic, this.tags[bucket] + ":x:" + topic };
	}

	/** Bucket count and format version of this prefix. */
	String metaKey() {
		return this.prefix + ":meta";
	}

	/** Live instances, for spreading bucket ownership. */
	public String instancesKey() {
		return this.prefix + ":instances";
	}

	/** Pub/sub channel on which schedulers tell migrators a bucket has an earlier job. */
	public String wakeChannel() {
		return this.prefix + ":wake";
	}

	/** List of bucket numbers that got READY jobs of a topic; consumers block on it. */
	public String signalKey(String topic) {
		return this.prefix + ":signal:" + topic;
	}

	public static String jobKey(String topic, String id) {
		return topic + ":" + id;
	}

	/**
	 * The bucket of a job. Part of redeq's data format: changing it would strand every
	 * stored job. String.hashCode is fixed by the Java language specification; the
	 * murmur3 finaliser spreads its low bits, which the mask keeps.
	 */
	public int bucketOf(String jobKey) {
		int h = jobKey.hashCode();
		h ^= h >>> 16;
		h *= 0x85ebca6b;
		h ^= h >>> 13;
		h *= 0xc2b2ae35;
		h ^= h >>> 16;
		return h & (this.buckets - 1);
	}

}
