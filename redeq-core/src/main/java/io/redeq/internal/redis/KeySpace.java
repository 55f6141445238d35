package io.redeq.internal.redis;

import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;

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

	/** What starts the payload hash's field of a job's attempt record. */
	private static final String ATTEMPT_FIELD_MARK = "@";

	private final String prefix;

	private final int buckets;

	private final String[] tags;

	private final String[][] bucketKeys;

	static {
		// Every script on a bucket needs its keys from here: by then the script machinery
		// reports layout refusals with redeq's exception for them.
		LayoutChangedException.reportedByScripts();
	}

	public KeySpace(String prefix, int buckets) {
		this.prefix = prefix;
		this.buckets = buckets;
		this.tags = new String[buckets];
		this.bucketKeys = new String[buckets][];
		for (int b = 0; b < buckets; b++) {
			String tag = "{" + prefix + ":" + b + ":" + suffixFor(prefix, b, buckets) + "}";
			this.tags[b] = tag;
			this.bucketKeys[b] = new String[FixedKey.values().length];
			for (FixedKey key : FixedKey.values()) {
				this.bucketKeys[b][key.ordinal()] = tag + ":" + key.name().toLowerCase(Locale.ROOT);
			}
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
	 * due, lease, died, error, count, lock.
	 */
	String[] bucketKeys(int bucket) {
		return this.bucketKeys[bucket];
	}

	/**
	 * The keys a job script on one bucket declares: the bucket's fixed keys followed by
	 * the ready and dead keys of each topic, in the order of {@code topics}.
	 */
	public String[] jobScriptKeys(int bucket, Collection<String> topics) {
		String[] fixed = this.bucketKeys[bucket];
		String[] all = new String[fixed.length + 2 * topics.size()];
		System.arraycopy(fixed, 0, all, 0, fixed.length);
		int i = fixed.length;
		for (String topic : topics) {
			all[i++] = readyKey(bucket, topic);
			all[i++] = deadKey(bucket, topic);
		}
		return all;
	}

	/** READY jobs of a topic in a bucket: a zset by due time. */
	public String readyKey(int bucket, String topic) {
		return this.tags[bucket] + ":ready:" + topic;
	}

	/**
	 * Requests of a bucket that a client may send twice (claim tokens, cancel request
	 * ids): a zset by the time they ran, kept briefly; only claim, cancel, release-claim
	 * and migrate declare it, after the topic keys.
	 */
	public String requestsKey(int bucket) {
		return this.tags[bucket] + ":requests";
	}

	/**
	 * The answer of one bulk cancel on a bucket, kept briefly under its request id so
	 * that the same call sent again answers as the first run did (see
	 * {@code cancel-all.lua}).
	 */
	String answerKey(int bucket, String requestId) {
		return this.tags[bucket] + ":answer:" + requestId;
	}

	/**
	 * Recurring jobs whose occurrences fall in a bucket: a hash of definitions and their
	 * tick plans (see {@code lib/recurring.lua}); migrate and the recurring scripts
	 * declare it after the topic keys.
	 */
	String recurringKey(int bucket) {
		return this.tags[bucket] + ":recurring";
	}

	/** DEAD jobs of a topic in a bucket: a zset by the time they died. */
	String deadKey(int bucket, String topic) {
		return this.tags[bucket] + ":dead:" + topic;
	}

	public String payloadKey(int bucket) {
		return this.bucketKeys[bucket][FixedKey.PAYLOAD.ordinal()];
	}

	/**
	 * The field of a job's attempt record in its bucket's payload hash (data format 3,
	 * see {@code lib/attempts.lua}). JobKeys start with their topic's letter or digit, so
	 * no job's own field starts with '@'.
	 */
	static String attemptField(String jobKey) {
		return ATTEMPT_FIELD_MARK + jobKey;
	}

	/** Whether a field of the payload hash is an attempt record rather than a job. */
	static boolean isAttemptField(String field) {
		return field.startsWith(ATTEMPT_FIELD_MARK);
	}

	/**
	 * The second data format's hash of attempt records (jobKey to its attempt record),
	 * read once by {@link FormatUpgrade} into the payload hash and then deleted.
	 */
	String formatTwoAttemptKey(int bucket) {
		return this.tags[bucket] + ":attempt";
	}

	String dueKey(int bucket) {
		return this.bucketKeys[bucket][FixedKey.DUE.ordinal()];
	}

	String leaseKey(int bucket) {
		return this.bucketKeys[bucket][FixedKey.LEASE.ordinal()];
	}

	String diedKey(int bucket) {
		return this.bucketKeys[bucket][FixedKey.DIED.ordinal()];
	}

	String errorKey(int bucket) {
		return this.bucketKeys[bucket][FixedKey.ERROR.ordinal()];
	}

	public String countKey(int bucket) {
		return this.bucketKeys[bucket][FixedKey.COUNT.ordinal()];
	}

	String lockKey(int bucket) {
		return this.bucketKeys[bucket][FixedKey.LOCK.ordinal()];
	}

	/**
	 * The keys of redeq's first data format in a bucket (jobs, delayed, inflight, dead,
	 * errors, counts), read once by {@link FormatUpgrade} and then deleted.
	 */
	String[] formatOneKeys(int bucket) {
		String[] scriptKeys = formatOneScriptKeys(bucket);
		String[] all = Arrays.copyOf(scriptKeys, scriptKeys.length + 1);
		all[scriptKeys.length] = formatOneCountsKey(bucket);
		return all;
	}

	/**
	 * The first format's keys upgrade-v1.lua declares after the topic keys: jobs,
	 * delayed, inflight, dead, errors.
	 */
	String[] formatOneScriptKeys(int bucket) {
		String tag = this.tags[bucket];
		return new String[] { formatOneJobsKey(bucket), tag + ":delayed", tag + ":inflight", tag + ":dead",
				tag + ":errors" };
	}

	/** The first format's jobs hash: jobKey -> its one record. */
	String formatOneJobsKey(int bucket) {
		return this.tags[bucket] + ":jobs";
	}

	/**
	 * The first format's counters, present while any of its jobs may be left in the
	 * bucket.
	 */
	String formatOneCountsKey(int bucket) {
		return this.tags[bucket] + ":counts";
	}

	/** Per-topic keys of the first format: the ready list and the dead zset. */
	String[] formatOneTopicKeys(int bucket, String topic) {
		return new String[] { this.tags[bucket] + ":r:" + topic, this.tags[bucket] + ":x:" + topic };
	}

	/** Bucket count and format version of this prefix. */
	String metaKey() {
		return this.prefix + ":meta";
	}

	/**
	 * Paused topics: a hash of topic to the time it was paused, read by every consumer
	 * (see {@code TopicPauses}).
	 */
	public String pausedKey() {
		return this.prefix + ":paused";
	}

	/**
	 * A topic's rate limiter: the log of grants (a zset) and the permits they hold (a
	 * string), under a hash tag of their own, so both are in one slot.
	 * @param topic the topic
	 * @return the grants key and the used key
	 */
	public String[] rateLimitKeys(String topic) {
		String tag = "{" + this.prefix + ":rate:" + topic + "}";
		return new String[] { tag + ":grants", tag + ":used" };
	}

	/** Live instances, for spreading bucket ownership. */
	public String instancesKey() {
		return this.prefix + ":instances";
	}

	/**
	 * What a live instance says of itself (see {@code InstanceDescriptions}); written by
	 * that instance only, with the heartbeat's ttl.
	 * @param instanceId the instance
	 * @return the key of its description
	 */
	public String instanceKey(String instanceId) {
		return this.prefix + ":instance:" + instanceId;
	}

	/** Pub/sub channel on which schedulers tell migrators a bucket has an earlier job. */
	public String wakeChannel() {
		return this.prefix + ":wake";
	}

	/** List of bucket numbers that got READY jobs of a topic; consumers block on it. */
	public String signalKey(String topic) {
		return this.prefix + ":signal:" + topic;
	}

	/**
	 * A topic's history counts of one kind: per minute ({@code m}) in a hash per hour
	 * whose fields are the minutes of the hour, or per hour ({@code h}) in a hash per day
	 * whose fields are the hours of the day; {@code period} is the hour or day since the
	 * epoch. Small hashes on purpose: Redis keeps a hash of up to 128 fields in its
	 * compact encoding.
	 */
	public String historyKey(String topic, String kind, char resolution, long period) {
		return this.prefix + ":history:" + topic + ":" + kind + ":" + resolution + ":" + period;
	}

	public static String jobKey(String topic, String id) {
		return topic + ":" + id;
	}

	/**
	 * The topic of a jobKey: everything before the first ':' (topics cannot hold one).
	 */
	static String topicOf(String jobKey) {
		return jobKey.substring(0, jobKey.indexOf(':'));
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

	/**
	 * A bucket's fixed keys, in the order prelude.lua reads them (KEYS[1] to KEYS[7]):
	 * each key is the bucket's tag, ':' and the name in lower case. Part of redeq's data
	 * format, like the tags.
	 */
	private enum FixedKey {

		PAYLOAD, DUE, LEASE, DIED, ERROR, COUNT, LOCK

	}

}
