package io.redeq.internal.consumer;

import java.util.List;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.CompletionReply;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.SlotOffer;

/**
 * What {@link Acknowledgements} needs from Redis: send one bucket's completions (claiming
 * into free slots with them), answered per job, and wait for a reply.
 */
interface CompletionScripts {

	/**
	 * Completes finished jobs of one bucket, without waiting.
	 * @param claim free slots the same script claims into, or {@code null}
	 * @return per job, in order, whether it was completed, and what was claimed
	 * @throws RuntimeException when there is no connection to send it on
	 */
	CompletionStage<CompletionReply> completeAll(int bucket, List<ClaimedJob> jobs, @Nullable SlotOffer claim);

	/**
	 * Waits for a reply within the command timeout.
	 * @throws io.redeq.RedeqUnavailableException when Redis does not answer in time
	 * @throws io.redeq.RedeqException when it answers with an error
	 */
	<T> T await(CompletionStage<T> reply, String operation);

	/** The store's complete script and its command timeout. */
	static CompletionScripts of(RedisJobStore store) {
		return new CompletionScripts() {

			@Override
			public CompletionStage<CompletionReply> completeAll(int bucket, List<ClaimedJob> jobs,
					@Nullable SlotOffer claim) {
				return store.completeAll(bucket, jobs, claim);
			}

			@Override
			public <T> T await(CompletionStage<T> reply, String operation) {
				return store.scripts().await(reply, operation);
			}

		};
	}

}
