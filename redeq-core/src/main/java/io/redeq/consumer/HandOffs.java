package io.redeq.consumer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import io.redeq.redis.ClaimedJob;
import io.redeq.redis.SlotOffer;

/**
 * This engine's consumers as its migrator sees them: before it migrates due buckets, it
 * collects the free worker slots of the consumers that have some, and the migrate script
 * puts due jobs of their topics straight IN_FLIGHT for them (see migrate.lua).
 *
 * <p>
 * That is what a claim right after the migrate would have done, with the same lease,
 * attempt record and claim token, so every guarantee holds as it does for a claim; it
 * only saves the signal, the consumer's wake-up and its claim: two round trips on the way
 * from due to running, and (measured in W3, jobs falling due one by one at 2k/s) 3.7 →
 * 3.0 scripts and 35 → 32 Redis commands per job. A consumer that is busy, paused,
 * rate-limited or closing offers nothing, and its jobs go to READY and wake it (or
 * others) as before.
 */
public final class HandOffs {

	/**
	 * How long before its due time an idle consumer may be handed a job, which it starts
	 * at the due time. The migrate script's round trip took 0.25 ms at the median and 1.5
	 * ms at the 99th percentile on a busy 2-core VM, and the migrator's wake-up up to 1
	 * ms more: W3's 99th percentile lateness fell from leads of 1 ms to 4 ms and no
	 * further at 6 ms. A job holds its slot this long at most before it runs.
	 */
	public static final long LEAD_MILLIS = 4;

	private final List<TopicConsumer> consumers = new CopyOnWriteArrayList<>();

	/**
	 * Per bucket: in a cluster each bucket lives on one master, and two masters' clocks
	 * differ.
	 */
	private final Map<Integer, RedisClockBound> redisClocks = new ConcurrentHashMap<>();

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
		return this.redisClocks.computeIfAbsent(bucket, (b) -> new RedisClockBound());
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

	/** One consumer's free slots, held for it until the offer is settled. */
	public static final class Offer {

		private final TopicConsumer consumer;

		private final int bucket;

		private final SlotOffer request;

		private final AtomicBoolean settled = new AtomicBoolean();

		Offer(TopicConsumer consumer, int bucket, SlotOffer request) {
			this.consumer = consumer;
			this.bucket = bucket;
			this.request = request;
		}

		/** What the migrate script is told. */
		public SlotOffer request() {
			return this.request;
		}

		/**
		 * The script answered: starts the jobs it handed over (none is fine) and gives
		 * back the slots they did not take.
		 * @param jobs the jobs put IN_FLIGHT for this consumer, some perhaps due shortly
		 * @param redisNowMicros the Redis time the script ran at, in microseconds
		 * @param repliedNanos when its reply was in ({@link System#nanoTime()}), or later
		 */
		public void accept(List<ClaimedJob> jobs, long redisNowMicros, long repliedNanos) {
			if (this.settled.compareAndSet(false, true)) {
				this.consumer.handedOver(this.request, this.bucket, jobs, redisNowMicros, repliedNanos);
			}
		}

		/**
		 * The script's reply never came ({@code bucket} is the one it ran on): the
		 * consumer hands back whatever it may have taken under the offer's token, as for
		 * a claim whose reply was lost, and gets its slots back. Does nothing once
		 * settled.
		 * @param failure why
		 */
		public void fail(@Nullable RuntimeException failure) {
			if (this.settled.compareAndSet(false, true)) {
				this.consumer.handOffFailed(this.request, this.bucket, failure);
			}
		}

	}

}
