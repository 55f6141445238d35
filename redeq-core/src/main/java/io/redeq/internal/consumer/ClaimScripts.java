package io.redeq.internal.consumer;

import java.util.List;
import java.util.concurrent.CompletionStage;

import io.redeq.internal.redis.ClaimResult;
import io.redeq.internal.redis.RedisJobStore;

/**
 * What {@link TopicConsumer}'s fetcher needs from Redis: read the lowest ready scores of
 * a topic in some buckets, claim jobs in one bucket, and wait for a reply.
 */
interface ClaimScripts {

	/**
	 * Claims up to {@code max} READY jobs of a topic in a bucket under a lease, without
	 * waiting ({@link RedisJobStore#claim(int, String, int, long, String, int, double)}).
	 * @throws RuntimeException when there is no connection to send it on
	 */
	CompletionStage<ClaimResult> claim(int bucket, String topic, int max, long leaseMillis, String token,
			int maxAttempts, double maxScore);

	/**
	 * Reads the lowest {@code count} ready scores of a topic in each of {@code buckets},
	 * pipelined.
	 * @return per bucket, in the order given, its scores lowest first
	 */
	List<CompletionStage<double[]>> readyScores(String topic, List<Integer> buckets, int count);

	/**
	 * Waits for a reply within the command timeout.
	 * @throws io.redeq.RedeqUnavailableException when Redis does not answer in time
	 * @throws io.redeq.RedeqException when it answers with an error
	 */
	<T> T await(CompletionStage<T> reply, String operation);

}
