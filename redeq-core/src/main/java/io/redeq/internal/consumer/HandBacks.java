package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.RedeqUnavailableException;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.RedisJobStore;

/**
 * Gives a subscription's claimed jobs that no handler runs any more back to READY, at the
 * head of their ready sets, and says in the log which Redis did not take back: those stay
 * IN_FLIGHT and run again when their leases expire, so nothing is lost when Redis does
 * not answer during a close.
 */
final class HandBacks {

	// The consumer's logger: its close reports these, and operators filter on that name.
	private static final Logger logger = LoggerFactory.getLogger(TopicConsumer.class);

	private final JobReleases store;

	private final ConsumerSettings settings;

	private final Duration shutdownTimeout;

	HandBacks(RedisJobStore store, ConsumerSettings settings, Duration shutdownTimeout) {
		this(JobReleases.of(store), settings, shutdownTimeout);
	}

	/** Hands back through {@code store}: a test's fake, or Redis. */
	HandBacks(JobReleases store, ConsumerSettings settings, Duration shutdownTimeout) {
		this.store = store;
		this.settings = settings;
		this.shutdownTimeout = shutdownTimeout;
	}

	/** A job claimed while closing, or one no worker took: back to READY now. */
	void unstarted(ClaimedJob job) {
		RuntimeException failure = giveBack(List.of(job), true, new ArrayList<>());
		if (failure != null) {
			logger.warn("Could not hand job {} back to READY ({}); it runs again when its lease expires",
					JobOutcomes.describe(job), failure.getMessage());
		}
	}

	/**
	 * Prefetched jobs no handler began, taken back on close: back to READY with the
	 * attempt refunded.
	 * @return the jobs Redis did not take back
	 */
	List<ClaimedJob> waiting(List<ClaimedJob> waiting) {
		List<ClaimedJob> notHandedBack = new ArrayList<>();
		RuntimeException failure = giveBack(waiting, true, notHandedBack);
		if (failure != null) {
			logger.warn(
					"Could not hand {} prefetched jobs of topic '{}' back to READY ({}): {}; they run again when "
							+ "their leases expire",
					notHandedBack.size(), this.settings.topic(), JobOutcomes.ids(notHandedBack), failure.getMessage());
		}
		return notHandedBack;
	}

	/**
	 * What close took from the workers: never started (attempt refunded) or interrupted
	 * (attempt counted) back to READY; one still running stays IN_FLIGHT.
	 * @return the jobs Redis did not take back
	 */
	List<ClaimedJob> unfinished(Workers.Unfinished unfinished) {
		List<ClaimedJob> notHandedBack = new ArrayList<>();
		RuntimeException failure = giveBack(unfinished.neverStarted(), true, notHandedBack);
		if (failure instanceof RedeqUnavailableException) {
			notHandedBack.addAll(unfinished.interrupted()); // no second wait for Redis
		}
		else {
			RuntimeException next = giveBack(unfinished.interrupted(), false, notHandedBack);
			failure = (failure != null) ? failure : next;
		}
		if (failure != null) {
			logger.warn(
					"Could not hand {} jobs of topic '{}' back to READY ({}): {}; they run again when their "
							+ "leases expire",
					notHandedBack.size(), this.settings.topic(), JobOutcomes.ids(notHandedBack), failure.getMessage());
		}
		for (ClaimedJob job : unfinished.stillRunning()) {
			logger.warn(
					"Job {} still runs: its handler ignored the interrupt at the end of the shutdown timeout ({}); "
							+ "it stays IN_FLIGHT and runs again when its lease expires, within {}",
					JobOutcomes.describe(job), this.shutdownTimeout, this.settings.lease());
		}
		return notHandedBack;
	}

	/**
	 * Releases jobs to the head of their ready lists, bucket by bucket, adding those
	 * Redis did not take to {@code notHandedBack}; returns the first failure, if any.
	 * Stops at the first bucket Redis does not answer for: one command timeout, not one
	 * per bucket.
	 */
	private @Nullable RuntimeException giveBack(List<ClaimedJob> jobs, boolean notStarted,
			List<ClaimedJob> notHandedBack) {
		Map<Integer, List<ClaimedJob>> byBucket = new LinkedHashMap<>();
		for (ClaimedJob job : jobs) {
			byBucket.computeIfAbsent(job.bucket(), (b) -> new ArrayList<>()).add(job);
		}
		RuntimeException failure = null;
		for (Map.Entry<Integer, List<ClaimedJob>> inBucket : byBucket.entrySet()) {
			if (failure instanceof RedeqUnavailableException) {
				notHandedBack.addAll(inBucket.getValue());
				continue;
			}
			try {
				this.store.releaseAndSignal(this.settings.topic(), inBucket.getKey(), inBucket.getValue(), notStarted);
			}
			catch (RuntimeException ex) {
				failure = (failure != null) ? failure : ex;
				notHandedBack.addAll(inBucket.getValue());
			}
		}
		return failure;
	}

}
