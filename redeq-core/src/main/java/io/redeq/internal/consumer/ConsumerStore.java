package io.redeq.internal.consumer;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import io.redeq.RedeqOptions;
import io.redeq.internal.control.RateLimit;
import io.redeq.internal.control.StartLimiter;
import io.redeq.internal.redis.ClaimResult;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.CompletionReply;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.ScheduleOutcome;
import io.redeq.internal.redis.SlotOffer;

/**
 * Everything one {@link TopicConsumer} needs from Redis, as the narrow ports its parts
 * take: the fetcher's claims, the completions, a failed job's retry or burial, lease
 * renewals, hand-backs of lost claims and of unstarted jobs, the topic's signal list and
 * its rate limiter. Redis, or one fake in a test.
 */
interface ConsumerStore
		extends ClaimScripts, CompletionScripts, FailedJobMoves, LeaseRenewals, ClaimReleases, JobReleases {

	/** The signal list of {@code topic}. */
	SignalList signals(String topic);

	/** The limiter of job starts of {@code topic}. */
	StartLimiter startLimiter(String topic, RateLimit limit);

	/** The store's scripts and commands, awaited within the command timeout. */
	static ConsumerStore of(RedisJobStore store, RedeqOptions options) {
		FailedJobMoves moves = FailedJobMoves.of(store);
		JobReleases releases = JobReleases.of(store);
		return new ConsumerStore() {

			@Override
			public CompletionStage<ClaimResult> claim(int bucket, String topic, int max, long leaseMillis, String token,
					int maxAttempts, double maxScore) {
				return store.claim(bucket, topic, max, leaseMillis, token, maxAttempts, maxScore);
			}

			@Override
			public List<CompletionStage<double[]>> readyScores(String topic, List<Integer> buckets, int count) {
				return store.readyScores(topic, buckets, count);
			}

			@Override
			public <T> T await(CompletionStage<T> reply, String operation) {
				return store.scripts().await(reply, operation);
			}

			@Override
			public CompletionStage<CompletionReply> completeAll(int bucket, List<ClaimedJob> jobs,
					@Nullable SlotOffer claim) {
				return store.completeAll(bucket, jobs, claim);
			}

			@Override
			public Optional<ScheduleOutcome> retry(ClaimedJob job, long backoffMillis, String reason) {
				return moves.retry(job, backoffMillis, reason);
			}

			@Override
			public long bury(ClaimedJob job, String reason) {
				return moves.bury(job, reason);
			}

			@Override
			public CompletionStage<List<Boolean>> extend(int bucket, long leaseMillis, List<ClaimedJob> jobs) {
				return store.extend(bucket, leaseMillis, jobs);
			}

			@Override
			public long releaseClaim(int bucket, String topic, String token) {
				return store.releaseClaim(bucket, topic, token);
			}

			@Override
			public void releaseAndSignal(String topic, int bucket, List<ClaimedJob> jobs, boolean notStarted) {
				releases.releaseAndSignal(topic, bucket, jobs, notStarted);
			}

			@Override
			public SignalList signals(String topic) {
				return SignalList.of(store, topic, options.commandTimeout());
			}

			@Override
			public StartLimiter startLimiter(String topic, RateLimit limit) {
				return new StartLimiter(store, topic, limit);
			}

		};
	}

}
