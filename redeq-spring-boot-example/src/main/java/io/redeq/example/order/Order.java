package io.redeq.example.order;

import java.time.Instant;

/**
 * An order: created, then paid or (when the payment timeout passes) cancelled.
 *
 * @param id the order number
 * @param item what was ordered
 * @param status where the order stands
 * @param createdAt when it was placed
 * @param payBy when it is cancelled unless paid
 */
public record Order(long id, String item, Status status, Instant createdAt, Instant payBy) {

	/** Where an order stands. */
	public enum Status {

		/** Placed, not paid yet. */
		AWAITING_PAYMENT,

		/** Paid in time. */
		PAID,

		/** Not paid in time. */
		CANCELLED

	}

	Order with(Status status) {
		return new Order(this.id, this.item, status, this.createdAt, this.payBy);
	}

}
