package io.redeq.admin;

import java.util.List;
import java.util.Set;

import io.redeq.DeadJob;
import io.redeq.RedeqAdmin;
import io.redeq.TopicStats;
import io.redeq.internal.Validate;
import io.redeq.redis.JobQueries;
import io.redeq.redis.KeySpace;
import io.redeq.redis.RedisJobStore;

/**
 * {@link RedeqAdmin} over all buckets: reads are pipelined, and requeue and purge run one
 * script per bucket and batch, so a large dead-letter queue never blocks Redis for long.
 */
public final class QueueAdmin implements RedeqAdmin {

	private static final int BATCH = 500;

	private static final int MAX_PAGE = 1000;

	private final RedisJobStore store;

	private final JobQueries queries;

	public QueueAdmin(RedisJobStore store, JobQueries queries) {
		this.store = store;
		this.queries = queries;
	}

	@Override
	public Set<String> topics() {
		return this.queries.topics();
	}

	@Override
	public TopicStats stats(String topic) {
		return this.queries.stats(Validate.topic(topic));
	}

	@Override
	public List<DeadJob> deadJobs(String topic, int offset, int limit) {
		Validate.topic(topic);
		Validate.atLeast("offset", offset, 0);
		Validate.between("limit", limit, 1, MAX_PAGE);
		return this.queries.deadJobs(topic, offset, limit);
	}

	@Override
	public boolean requeueDead(String topic, String id) {
		Validate.topic(topic);
		String jobKey = KeySpace.jobKey(topic, Validate.id(topic, id));
		int bucket = this.store.keys().bucketOf(jobKey);
		boolean requeued = this.store.requeueDead(bucket, topic, jobKey, 1) == 1;
		if (requeued) {
			this.store.signal(topic, bucket);
		}
		return requeued;
	}

	@Override
	public long requeueAllDead(String topic) {
		Validate.topic(topic);
		long total = 0;
		for (int bucket = 0; bucket < this.store.keys().buckets(); bucket++) {
			long moved;
			long inBucket = 0;
			do {
				moved = this.store.requeueDead(bucket, topic, "", BATCH);
				inBucket += moved;
			}
			while (moved == BATCH);
			if (inBucket > 0) {
				this.store.signal(topic, bucket);
			}
			total += inBucket;
		}
		return total;
	}

	@Override
	public long purgeDead(String topic) {
		Validate.topic(topic);
		long total = 0;
		for (int bucket = 0; bucket < this.store.keys().buckets(); bucket++) {
			long purged;
			do {
				purged = this.store.purgeDead(bucket, topic, BATCH);
				total += purged;
			}
			while (purged == BATCH);
		}
		return total;
	}

}
