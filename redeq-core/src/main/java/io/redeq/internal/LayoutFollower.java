package io.redeq.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import io.redeq.internal.redis.LayoutChangedException;

/**
 * Where a caller refused because the bucket count changed (see
 * {@link LayoutChangedException}) waits for its engine to run on the count Redis records,
 * before it tries again on the new layout.
 */
public interface LayoutFollower {

	/**
	 * Completes once the engine runs on another bucket count than {@code refusedBuckets}
	 * (the change is over and the engine followed it); fails with a
	 * {@link LayoutChangedException} if the change does not end within the engine's
	 * bound.
	 * @param refusedBuckets the count the refused call was made on
	 * @return the future
	 */
	CompletableFuture<Void> followed(int refusedBuckets);

	/**
	 * The count a change under way moves to, as Redis records it now, so that a new job
	 * can go straight to its bucket of the new layout instead of waiting for the change
	 * to end.
	 * @param refusedBuckets the count the refused call was made on
	 * @return the count the change moves to, or 0 when no change moves away from
	 * {@code refusedBuckets} any more (the engine follows, or followed, the new count)
	 */
	CompletableFuture<Integer> changingTo(int refusedBuckets);

	/**
	 * Runs a blocking call; when a changed bucket layout refuses it, waits until the
	 * engine followed the change and runs it again, on the new layout. A refused call
	 * wrote nothing, so running it again is safe.
	 * @param <T> what the call returns
	 * @param buckets the bucket count the engine runs on now
	 * @param call the call
	 * @return what the call returned
	 */
	default <T> T retrying(IntSupplier buckets, Supplier<T> call) {
		while (true) {
			int before = buckets.getAsInt();
			try {
				return call.get();
			}
			catch (LayoutChangedException ex) {
				try {
					followed(before).join();
				}
				catch (CompletionException waited) {
					if (waited.getCause() instanceof RuntimeException cause) {
						cause.addSuppressed(ex);
						throw cause;
					}
					throw waited;
				}
			}
		}
	}

}
