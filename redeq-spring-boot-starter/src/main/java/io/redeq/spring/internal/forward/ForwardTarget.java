package io.redeq.spring.internal.forward;

/**
 * Where a forwarded topic's due jobs are published.
 *
 * @param exchange the exchange, {@code ""} for the default exchange
 * @param routingKey the routing key, possibly {@code ""}
 * @since 0.1.0
 */
public record ForwardTarget(String exchange, String routingKey) {

	@Override
	public String toString() {
		return "exchange '" + this.exchange + "' with routing key '" + this.routingKey + "'";
	}

}
