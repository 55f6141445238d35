package io.redeq.redis;

import java.util.List;

/**
 * The jobs one claim took, with the Redis time it ran at and how many entries the ready
 * list still has (an upper bound: entries of cancelled jobs are only skipped when
 * popped).
 *
 * @param now Redis time, epoch ms
 * @param remaining entries left in the bucket's ready list of the topic
 * @param jobs the claimed jobs
 */
public record ClaimResult(long now, long remaining, List<ClaimedJob> jobs) {
}
