package io.redeq.example.order;

import org.springframework.stereotype.Component;

import io.redeq.spring.RedeqListener;

/**
 * Cancels orders whose payment timeout came due.
 */
@Component
class OrderTimeoutListener {

	private final OrderService orders;

	OrderTimeoutListener(OrderService orders) {
		this.orders = orders;
	}

	@RedeqListener(topic = OrderService.TIMEOUT_TOPIC, concurrency = "2")
	void onTimeout(OrderTimeout timeout) {
		this.orders.cancelUnpaid(timeout.orderId());
	}

}
