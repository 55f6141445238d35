package io.redeq.internal.consumer;

import java.util.concurrent.Semaphore;

/**
 * The worker slots one fetch round may fill. The round takes every free slot at once;
 * each slot then goes either to a job that started (which gives it back when it finishes)
 * or back to the pool when the round ends, whether it ended normally or with a failed
 * claim. Counting per slot is what keeps a round that fails halfway from handing back the
 * slots its started jobs still hold.
 */
final class FreeSlots {

	private final Semaphore slots;

	private final int taken;

	private int handedOver;

	private boolean over;

	private FreeSlots(Semaphore slots, int taken) {
		this.slots = slots;
		this.taken = taken;
	}

	/** Waits for at least one free slot, then takes all that are free. */
	static FreeSlots take(Semaphore slots) throws InterruptedException {
		slots.acquire();
		return new FreeSlots(slots, 1 + slots.drainPermits());
	}

	/** Slots this round may still fill. */
	int left() {
		return this.over ? 0 : this.taken - this.handedOver;
	}

	/** Whether any job started in this round. */
	boolean anyHandedOver() {
		return this.handedOver > 0;
	}

	/**
	 * A job started and holds one slot now; it gives it back itself when it finishes.
	 */
	void handOverOne() {
		if (left() == 0) {
			throw new IllegalStateException("No free slot left to hand over");
		}
		this.handedOver++;
	}

	/** Gives back the slots no job took; the round is over. */
	void releaseUnused() {
		this.slots.release(left());
		this.over = true;
	}

}
