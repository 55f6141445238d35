package io.redeq.redis;

/**
 * Free worker slots an idle consumer of this instance offers to a migrate: the script may
 * put up to {@code slots} due jobs of the topic straight IN_FLIGHT under {@code token},
 * as a claim would have right after (see migrate.lua).
 *
 * @param topic the consumer's topic
 * @param slots how many jobs it can start now
 * @param leaseMillis the lease of each job it takes
 * @param token a claim token never used before
 * @param maxAttempts the subscription's attempts per job
 */
public record SlotOffer(String topic, int slots, long leaseMillis, String token, int maxAttempts) {

	public SlotOffer {
		if (slots < 1) {
			throw new IllegalArgumentException("An offer needs at least one free slot, but got " + slots);
		}
	}

}
