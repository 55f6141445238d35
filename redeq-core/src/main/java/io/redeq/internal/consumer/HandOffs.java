package io.redeq.internal.consumer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.SlotOffer;

/**
 * This engine's consumers as its migrator sees them: before it migrates due buckets, it
 * collects the free worker slots of the consumers that have some, and the migrate script
 * puts due jobs of their topics straight IN_FLIGHT for them (see migrate.lua).
 *
 * <p>
 * That is what a claim right after the migrate would have done, with the same lease,
 * attempt record and claim token, so every guarantee holds as it does for a claim; it
 * only saves the signal, the consumer's wake-up and its claim: two round trips on the way
 * from due to running, and with them scripts and Redis commands per job. A consumer that
 * is busy, paused, rate-limited or closing offers nothing, and its jobs go to READY and
 * wake it (or others) as before.
 */
public final class HandOffs {

	/**
	 * How long before a bucket's next due job the migrator calls it when this instance
	 * has a consumer: long enough for the migrate script's round trip and the migrator's
	 * wake-up on a busy machine, so the job is in the consumer's hands when it falls due;
	 * a longer lead only holds a slot longer.
	 */
	public static final long LEAD_MILLIS = 4;

	/**
	 * The jobs due this long after the lead that a call hands over with the first: the
	 * longer, the more jobs each call hands over, until the consumer's slots are full
	 * (see docs/how-it-works.md#early-hand-off). Each call is a script's fixed cost (its
	 * keys and arguments turned into Lua tables, its reply, two system calls): the fewer
	 * calls, the less Redis CPU per job.
	 */
	static final long GATHER_MILLIS = 96;

	/**
	 * How far ahead of the script's Redis time an offer takes jobs: the lead, and the
	 * jobs falling due in the {@value #GATHER_MILLIS} ms after it. Called 4 ms ahead of
	 * each job, a bucket's calls would each find the one job entering that window (one
	 * call per job when jobs fall due one by one); this way one call hands over the jobs
	 * of the next 96 ms. A job holds its slot this long at most before it runs, so only
	 * while half the open slots are free ({@code Workers.roomForEarlyJobs}).
	 */
	public static final long LOOK_AHEAD_MILLIS = LEAD_MILLIS + GATHER_MILLIS;

	private final List<TopicConsumer> consumers = new CopyOnWriteArrayList<>();

	/**
	 * Per bucket in a cluster, where each bucket lives on one master and two masters'
	 * clocks differ; one for all buckets on a single server, which then learns its clock
	 * from every bucket's replies.
	 */
	private final Map<Integer, RedisClockBound> redisClocks = new ConcurrentHashMap<>();

	private final boolean oneServer;

	/**
	 * Hand-offs with no consumer yet.
	 * @param oneServer whether every bucket lives on one Redis server (not a cluster, not
	 * behind a proxy), so one clock serves them all
	 */
	public HandOffs(boolean oneServer) {
		this.oneServer = oneServer;
	}

	void join(TopicConsumer consumer) {
		this.consumers.add(consumer);
	}

	void leave(TopicConsumer consumer) {
		this.consumers.remove(consumer);
	}

	/**
	 * Where the clock of the Redis server holding {@code bucket} surely is, as the
	 * replies of its hand-offs tell.
	 */
	RedisClockBound redisClock(int bucket) {
		return this.redisClocks.computeIfAbsent(this.oneServer ? 0 : bucket, (b) -> new RedisClockBound());
	}

	/** Whether any consumer of this instance could take a job handed over. */
	public boolean anyConsumer() {
		return !this.consumers.isEmpty();
	}

	/**
	 * Takes the free slots of every consumer that has some, each consumer's split over
	 * the {@code buckets} about to be migrated; the caller must settle each offer it gets
	 * ({@link Offer#accept}, or {@link Offer#fail}), which gives back the slots no job
	 * took.
	 * @param buckets the buckets about to be migrated, the slots spread over them
	 * @return per bucket, the offers for its script (empty when every consumer is busy)
	 */
	public List<List<Offer>> collect(int[] buckets) {
		List<List<Offer>> byBucket = new ArrayList<>(buckets.length);
		for (int i = 0; i < buckets.length; i++) {
			byBucket.add(new ArrayList<>());
		}
		for (TopicConsumer consumer : this.consumers) {
			List<@Nullable Offer> offers = consumer.offerSlots(buckets);
			for (int i = 0; i < buckets.length; i++) {
				Offer offer = offers.get(i);
				if (offer != null) {
					byBucket.get(i).add(offer);
				}
			}
		}
		return byBucket;
	}

	/**
	 * One consumer's free slots, held for it until the offer is settled, and the
	 * consumer's finished jobs of the bucket, whose completions ride on the same migrate
	 * call (see migrate.lua): a consumer fed by hand-offs then pays no complete script of
	 * its own.
	 */
	public static final class Offer {

		private final TopicConsumer consumer;

		private final int bucket;

		private final SlotOffer request;

		private final List<PendingCompletion> riding;

		private final List<ClaimedJob> completions;

		private final AtomicBoolean settled = new AtomicBoolean();

		Offer(TopicConsumer consumer, int bucket, SlotOffer request, List<PendingCompletion> riding) {
			this.consumer = consumer;
			this.bucket = bucket;
			this.request = request;
			this.riding = riding;
			this.completions = riding.stream().map((pending) -> pending.job).toList();
		}

		/** What the migrate script is told. */
		public SlotOffer request() {
			return this.request;
		}

		/** The finished jobs the migrate call is to complete for this consumer. */
		public List<ClaimedJob> completions() {
			return this.completions;
		}

		/**
		 * The script answered: starts the jobs it handed over (none is fine) and gives
		 * back the slots they did not take.
		 * @param jobs the jobs put IN_FLIGHT for this consumer, some perhaps due shortly
		 * @param redisNowMicros the Redis time the script ran at, in microseconds
		 * @param repliedNanos when its reply was in ({@link System#nanoTime()}), or later
		 */
		public void accept(List<ClaimedJob> jobs, long redisNowMicros, long repliedNanos) {
			accept(jobs, List.of(), redisNowMicros, repliedNanos);
		}

		/**
		 * The migrate script answered: ends the completions it carried with its answer
		 * for each, then starts the jobs it handed over (none is fine) and gives back the
		 * slots they did not take.
		 * @param jobs the jobs put IN_FLIGHT for this consumer, some perhaps due shortly
		 * @param completed per job of {@link #completions()}, in order, whether it
		 * completed
		 * @param redisNowMicros the Redis time the script ran at, in microseconds
		 * @param repliedNanos when its reply was in ({@link System#nanoTime()}), or later
		 */
		public void accept(List<ClaimedJob> jobs, List<Boolean> completed, long redisNowMicros, long repliedNanos) {
			if (completed.size() != this.riding.size()) {
				throw new IllegalArgumentException("An offer carried " + this.riding.size()
						+ " completions, but the answer has " + completed.size());
			}
			if (this.settled.compareAndSet(false, true)) {
				this.consumer.completionsRode(this.bucket, this.riding, completed);
				this.consumer.handedOver(this.request, this.bucket, jobs, redisNowMicros, repliedNanos);
			}
		}

		/**
		 * The script's reply never came ({@code bucket} is the one it ran on): the
		 * consumer hands back whatever it may have taken under the offer's token, as for
		 * a claim whose reply was lost, gets its slots back, and sends the completions
		 * the call carried on its own. Does nothing once settled.
		 * @param failure why
		 */
		public void fail(@Nullable RuntimeException failure) {
			if (this.settled.compareAndSet(false, true)) {
				this.consumer.completionsDidNotRide(this.riding);
				this.consumer.handOffFailed(this.request, this.bucket, failure);
			}
		}

	}

}
