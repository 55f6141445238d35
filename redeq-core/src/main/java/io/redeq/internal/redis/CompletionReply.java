package io.redeq.internal.redis;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What one complete call answered.
 *
 * @param completed per job sent, in order, whether it completed (false: the claim was no
 * longer ours)
 * @param claimed what the call claimed for the consumer, when it was asked to claim
 */
public record CompletionReply(List<Boolean> completed, @Nullable ClaimResult claimed) {
}
