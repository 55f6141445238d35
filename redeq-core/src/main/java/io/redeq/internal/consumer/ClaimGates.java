package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One claim in flight per bucket and subscription. A subscription claims in three ways:
 * its fetcher, a completion that claims the next jobs in the same script, and the
 * migrator's hand-off. Their replies are handled on different threads, so two claims in
 * flight on one bucket could start their jobs in the opposite order to the one Redis gave
 * them (a later job of one priority before an earlier one). With one claim in flight per
 * bucket, jobs reach the workers, and wait for a turn, in claim order.
 *
 * <p>
 * The fetcher waits for the gate (the claim holding it is answered or fails within a
 * command timeout); a completion or a hand-off that finds it taken simply claims nothing.
 */
final class ClaimGates {

	private final Semaphore[] gates;

	ClaimGates(int buckets) {
		this.gates = new Semaphore[buckets];
		for (int i = 0; i < buckets; i++) {
			this.gates[i] = new Semaphore(1);
		}
	}

	/** Takes the bucket's gate if no claim of this subscription is in flight there. */
	boolean tryEnter(int bucket) {
		return this.gates[bucket].tryAcquire();
	}

	/**
	 * Waits up to {@code wait} for the bucket's gate.
	 * @return whether it was taken
	 */
	boolean enter(int bucket, Duration wait) throws InterruptedException {
		return this.gates[bucket].tryAcquire(wait.toNanos(), TimeUnit.NANOSECONDS);
	}

	/** The claim's jobs reached the workers, or it failed: the next claim may go. */
	void leave(int bucket) {
		this.gates[bucket].release();
	}

}
