package io.redeq.internal.redis;

/**
 * Free worker slots an idle consumer of this instance offers to a migrate: the script may
 * put up to {@code slots} due jobs of the topic straight IN_FLIGHT under {@code token},
 * as a claim would have right after (see migrate.lua). When nothing is due yet, it may
 * also hand over jobs due within {@code leadMillis}, which the consumer starts at their
 * due time: the script's round trip then happens before they are due, not after.
 *
 * @param topic the consumer's topic
 * @param slots how many jobs it can start now
 * @param leaseMillis the lease of each job it takes
 * @param token a claim token never used before
 * @param maxAttempts the subscription's attempts per job
 * @param leadMillis how long before their due time jobs may be handed over, 0 for never
 * @param maxScore the highest ready score (see {@link ClaimedJob#readyScore()}) a
 * completion's claim may take, {@link Double#POSITIVE_INFINITY} for any: the consumer
 * knows a better head in another bucket of the topic
 */
public record SlotOffer(String topic, int slots, long leaseMillis, String token, int maxAttempts, long leadMillis,
		double maxScore) {

	public SlotOffer {
		if (slots < 1) {
			throw new IllegalArgumentException("An offer needs at least one free slot, but got " + slots);
		}
		if (leadMillis < 0) {
			throw new IllegalArgumentException("An offer's lead cannot be negative, but got " + leadMillis);
		}
		if (Double.isNaN(maxScore) || maxScore == Double.NEGATIVE_INFINITY) {
			throw new IllegalArgumentException(
					"An offer's score bound must be a number or +Infinity, but got " + maxScore);
		}
	}

	/** An offer that may take any READY job of its bucket. */
	public SlotOffer(String topic, int slots, long leaseMillis, String token, int maxAttempts, long leadMillis) {
		this(topic, slots, leaseMillis, token, maxAttempts, leadMillis, Double.POSITIVE_INFINITY);
	}

	/** An offer of due jobs only. */
	public SlotOffer(String topic, int slots, long leaseMillis, String token, int maxAttempts) {
		this(topic, slots, leaseMillis, token, maxAttempts, 0);
	}

}
