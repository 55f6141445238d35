package io.redeq.internal.migrator;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

import io.redeq.internal.redis.BucketPeek;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.MigrateResult;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.SlotOffer;

/**
 * What the {@link Migrator} needs from Redis: the heartbeat and bucket locks, the sweep's
 * look at the owned buckets, the migrate scripts, and the signals that wake consumers.
 * Each call is one script or command of {@link RedisJobStore}, which says what it does.
 */
interface MigrationScripts {

	/**
	 * Announces this instance, or says it leaves; returns how many instances are alive.
	 */
	long heartbeat(String instanceId, long ttlMillis, boolean leaving);

	/** Takes a bucket's lock if no other instance holds it. */
	boolean tryLock(int bucket, String owner, long ttlMillis);

	/** Releases a bucket's lock if {@code owner} holds it. */
	boolean unlock(int bucket, String owner);

	/** Publishes this instance's description, not awaited. */
	CompletionStage<String> describeInstance(String instanceId, String description, long ttlMillis);

	/** Removes this instance's description when it leaves. */
	void forgetInstance(String instanceId);

	/** Renews the locks of the owned buckets and reads the head of each one's indexes. */
	List<BucketPeek> peek(int[] buckets, String owner, long lockTtlMillis);

	/**
	 * Moves due jobs of one bucket; a sweep also renews the lock, reclaims and purges.
	 */
	MigrateResult migrate(int bucket, int batchSize, boolean sweep, String lockOwner, long lockTtlMillis,
			long deadRetentionMillis);

	/**
	 * Migrates the due jobs of several buckets in one pipelined round, handing due jobs
	 * to the offers and completing the completions carried; {@code each} gets every
	 * bucket's result as it comes in, and the first failure is thrown after the last
	 * reply.
	 */
	void migrateDue(int[] buckets, int batchSize, List<List<SlotOffer>> offersByBucket,
			List<List<ClaimedJob>> completionsByBucket, BiConsumer<Integer, MigrateResult> each);

	/** Tells the consumers of a topic that a bucket has READY jobs; a hint. */
	CompletionStage<Long> signal(String topic, int bucket);

	/** The store's scripts and commands. */
	static MigrationScripts of(RedisJobStore store) {
		return new MigrationScripts() {

			@Override
			public long heartbeat(String instanceId, long ttlMillis, boolean leaving) {
				return store.instances().heartbeat(instanceId, ttlMillis, leaving);
			}

			@Override
			public boolean tryLock(int bucket, String owner, long ttlMillis) {
				return store.tryLock(bucket, owner, ttlMillis);
			}

			@Override
			public boolean unlock(int bucket, String owner) {
				return store.unlock(bucket, owner);
			}

			@Override
			public CompletionStage<String> describeInstance(String instanceId, String description, long ttlMillis) {
				return store.instances().describeInstance(instanceId, description, ttlMillis);
			}

			@Override
			public void forgetInstance(String instanceId) {
				store.instances().forgetInstance(instanceId);
			}

			@Override
			public List<BucketPeek> peek(int[] buckets, String owner, long lockTtlMillis) {
				return store.peek(buckets, owner, lockTtlMillis);
			}

			@Override
			public MigrateResult migrate(int bucket, int batchSize, boolean sweep, String lockOwner, long lockTtlMillis,
					long deadRetentionMillis) {
				return store.migrate(bucket, batchSize, sweep, lockOwner, lockTtlMillis, deadRetentionMillis);
			}

			@Override
			public void migrateDue(int[] buckets, int batchSize, List<List<SlotOffer>> offersByBucket,
					List<List<ClaimedJob>> completionsByBucket, BiConsumer<Integer, MigrateResult> each) {
				store.migrateDue(buckets, batchSize, offersByBucket, completionsByBucket, each);
			}

			@Override
			public CompletionStage<Long> signal(String topic, int bucket) {
				return store.signal(topic, bucket);
			}

		};
	}

}
