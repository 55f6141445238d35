package io.redeq.internal.admin;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import io.redeq.DeadJob;
import io.redeq.InstanceInfo;
import io.redeq.JobState;
import io.redeq.JobView;
import io.redeq.RecurringInfo;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqOptions;
import io.redeq.TopicStats;
import io.redeq.internal.InvalidValueException;
import io.redeq.internal.Validate;
import io.redeq.internal.control.TopicPauses;
import io.redeq.internal.migrator.InstanceDescriptions;
import io.redeq.internal.recurring.RecurringJobs;
import io.redeq.internal.redis.JobPages;
import io.redeq.internal.redis.JobQueries;
import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.PurgeStep;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.Resharder;

/**
 * {@link RedeqAdmin} over all buckets: reads are pipelined, and requeue and purge run one
 * script per bucket and batch, so a large dead-letter queue never blocks Redis for long.
 */
public final class QueueAdmin implements RedeqAdmin, StepwisePurge {

	private static final int BATCH = 500;

	private static final int MAX_PAGE = 1000;

	/** Index entries one purge step looks at, at most. */
	private static final int PURGE_LOOK = 5000;

	/** Walks of one bucket's index by a purge, at most (see purgeWaiting). */
	private static final int MAX_PURGE_WALKS = 3;

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
	public long changeBucketCount(int buckets) {
		Validate.powerOfTwo("buckets", buckets, RedeqOptions.MAX_BUCKETS);
		KeySpace keys = this.store.keys();
		return Resharder.change(this.store.scripts(), keys.prefix(), buckets);
	}

	@Override
	public List<InstanceInfo> instances() {
		List<InstanceInfo> instances = new ArrayList<>();
		for (String description : this.store.instances().instanceDescriptions(MAX_INSTANCES)) {
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
			// Every bucket's first offset + limit entries are read: the cap
			// bounds a call.
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
		boolean requeued = this.store.admin().requeueDead(bucket, topic, jobKey, 1) == 1;
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
		boolean promoted = this.store.admin().promote(bucket, jobKey);
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
				moved = this.store.admin().requeueDead(bucket, topic, "", BATCH);
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
	public long purge(String topic, JobState state) {
		return purge(topic, state, (ids) -> {
		});
	}

	/**
	 * Purges as {@link #purge(String, JobState)} does and tells {@code deleted} the ids
	 * of each step's DELAYED or READY jobs, once the step deleted them (the starter's
	 * journal records them as cancelled). Not told of DEAD jobs.
	 * @param topic the topic
	 * @param state the state
	 * @param deleted told the ids each step deleted
	 * @return the number of jobs deleted
	 */
	@Override
	public long purge(String topic, JobState state, Consumer<List<String>> deleted) {
		Validate.topic(topic);
		Objects.requireNonNull(state, "state must not be null");
		Objects.requireNonNull(deleted, "deleted must not be null");
		return switch (state) {
			case DEAD -> purgeDead(topic);
			case DELAYED -> purgeWaiting(topic, 'D', deleted);
			case READY -> purgeWaiting(topic, 'R', deleted);
			case IN_FLIGHT -> throw new InvalidValueException("state of the jobs to purge in topic '" + topic + "'",
					state, "must be DELAYED, READY or DEAD (a running job ends with its handler; "
							+ "cancel or purge it once it waits again)");
		};
	}

	/**
	 * Deletes a topic's DELAYED or READY jobs bucket by bucket, in steps of at most
	 * {@link RedisJobStore#MAX_PURGE_PER_CALL} jobs. A bucket's DELAYED index is shared
	 * with other topics and walked by rank; jobs of other topics leaving it meanwhile
	 * shift the ranks, so a walk may pass some of this topic's jobs: the bucket is walked
	 * again while a walk deleted any, a bounded number of times.
	 */
	private long purgeWaiting(String topic, char state, Consumer<List<String>> deleted) {
		int idStart = topic.length() + 1;
		long total = 0;
		for (int bucket = 0; bucket < this.store.keys().buckets(); bucket++) {
			for (int walk = 0; walk < MAX_PURGE_WALKS; walk++) {
				long inWalk = 0;
				long start = 0;
				PurgeStep step;
				do {
					step = this.store.admin()
						.purgeWaiting(bucket, topic, state, start, PURGE_LOOK, RedisJobStore.MAX_PURGE_PER_CALL);
					if (!step.jobKeys().isEmpty()) {
						inWalk += step.jobKeys().size();
						deleted.accept(step.jobKeys().stream().map((jobKey) -> jobKey.substring(idStart)).toList());
					}
					start = step.next();
				}
				while (step.more());
				total += inWalk;
				if (inWalk == 0) {
					break;
				}
			}
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
				purged = this.store.admin().purgeDead(bucket, topic, BATCH);
				total += purged;
			}
			while (purged == BATCH);
		}
		return total;
	}

}
