package io.redeq.admin;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import io.redeq.DeadJob;
import io.redeq.InstanceInfo;
import io.redeq.JobState;
import io.redeq.JobView;
import io.redeq.RecurringInfo;
import io.redeq.RedeqAdmin;
import io.redeq.TopicStats;
import io.redeq.control.TopicPauses;
import io.redeq.internal.InvalidValueException;
import io.redeq.internal.Validate;
import io.redeq.migrator.InstanceDescriptions;
import io.redeq.recurring.RecurringJobs;
import io.redeq.redis.JobPages;
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

	/** Instances read by {@link #instances()}: far more than a prefix runs. */
	private static final int MAX_INSTANCES = 1000;

	private final RedisJobStore store;

	private final JobQueries queries;

	private final JobPages pages;

	private final RecurringJobs recurring;

	private final TopicPauses pauses;

	public QueueAdmin(RedisJobStore store, JobQueries queries, RecurringJobs recurring, TopicPauses pauses) {
		this.store = store;
		this.queries = queries;
		this.pages = new JobPages(store);
		this.recurring = recurring;
		this.pauses = pauses;
	}

	@Override
	public List<InstanceInfo> instances() {
		List<InstanceInfo> instances = new ArrayList<>();
		for (String description : this.store.instanceDescriptions(MAX_INSTANCES)) {
			InstanceInfo instance = InstanceDescriptions.read(description);
			if (instance != null) {
				instances.add(instance);
			}
		}
		instances.sort(Comparator.comparing(InstanceInfo::instanceId));
		return instances;
	}

	@Override
	public List<RecurringInfo> recurring() {
		return this.recurring.list();
	}

	@Override
	public boolean cancelRecurring(String topic, String id) {
		return this.recurring.cancel(topic, id);
	}

	@Override
	public void pause(String topic) {
		this.pauses.pause(Validate.topic(topic));
	}

	@Override
	public void resume(String topic) {
		this.pauses.resume(Validate.topic(topic));
	}

	@Override
	public boolean isPaused(String topic) {
		return this.pauses.isPausedInRedis(Validate.topic(topic));
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
	public List<JobView> jobs(String topic, JobState state, int offset, int limit) {
		Validate.topic(topic);
		Objects.requireNonNull(state, "state must not be null");
		Validate.atLeast("offset", offset, 0);
		Validate.between("limit", limit, 1, MAX_PAGE);
		if ((long) offset + limit > JobPages.MAX_WINDOW) {
			// Every bucket's first offset + limit entries are read: the cap bounds a
			// call.
			throw new InvalidValueException("offset + limit", (long) offset + limit,
					"must be at most " + JobPages.MAX_WINDOW + " (a page reads offset + limit entries per bucket)");
		}
		return this.pages.page(topic, state, offset, limit);
	}

	@Override
	public Optional<JobView> job(String topic, String id) {
		Validate.topic(topic);
		return this.pages.find(topic, Validate.id(topic, id));
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
	public boolean promote(String topic, String id) {
		Validate.topic(topic);
		String jobKey = KeySpace.jobKey(topic, Validate.id(topic, id));
		int bucket = this.store.keys().bucketOf(jobKey);
		boolean promoted = this.store.promote(bucket, jobKey);
		if (promoted) {
			this.store.signal(topic, bucket);
		}
		return promoted;
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
