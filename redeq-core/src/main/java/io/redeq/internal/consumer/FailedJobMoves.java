package io.redeq.internal.consumer;

import java.util.Optional;

import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.ScheduleOutcome;

/**
 * What {@link JobOutcomes} needs from Redis for a failed job: schedule its retry or bury
 * it, each answered before the worker goes on.
 */
interface FailedJobMoves {

	/**
	 * Puts a failed job back to DELAYED.
	 * @return its new due time, or empty if the claim was lost
	 * @throws io.redeq.RedeqException when Redis does not answer or refuses
	 */
	Optional<ScheduleOutcome> retry(ClaimedJob job, long backoffMillis, String reason);

	/**
	 * Moves a job to DEAD.
	 * @return when it died, or 0 if the claim was lost
	 * @throws io.redeq.RedeqException when Redis does not answer or refuses
	 */
	long bury(ClaimedJob job, String reason);

	/** The store's retry and bury scripts, awaited within the command timeout. */
	static FailedJobMoves of(RedisJobStore store) {
		return new FailedJobMoves() {

			@Override
			public Optional<ScheduleOutcome> retry(ClaimedJob job, long backoffMillis, String reason) {
				return store.scripts()
					.await(store.retry(job, backoffMillis, reason), "retry job " + JobOutcomes.describe(job));
			}

			@Override
			public long bury(ClaimedJob job, String reason) {
				return store.scripts().await(store.bury(job, reason), "bury job " + JobOutcomes.describe(job));
			}

		};
	}

}
