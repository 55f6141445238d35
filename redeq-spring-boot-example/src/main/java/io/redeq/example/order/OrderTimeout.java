package io.redeq.example.order;

/**
 * The payload of an {@code order.timeout} job: which order to cancel if it is still
 * unpaid.
 *
 * @param orderId the order number
 */
public record OrderTimeout(long orderId) {
}
