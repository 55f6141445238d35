package io.redeq.spring.boot.topology;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.context.annotation.Configuration;

import io.redeq.Delivery;
import io.redeq.RedeqClient;
import io.redeq.spring.RedeqListener;

/**
 * A listener that counts the deliveries of each job of topic {@code orders}, and those of
 * a later attempt.
 */
@Configuration(proxyBeanMethods = false)
class Deliveries {

	final Map<String, AtomicInteger> byId = new ConcurrentHashMap<>();

	/** Deliveries of a later attempt: here, jobs run again after their lease expired. */
	final AtomicInteger afterLeaseExpiry = new AtomicInteger();

	@RedeqListener(topic = "orders", concurrency = "4")
	void onOrder(String payload, Delivery delivery) {
		if (delivery.attempt() > 1) {
			this.afterLeaseExpiry.incrementAndGet();
		}
		this.byId.computeIfAbsent(delivery.id(), (id) -> new AtomicInteger()).incrementAndGet();
	}

	long duplicates() {
		return this.byId.values().stream().filter((count) -> count.get() > 1).count();
	}

	/**
	 * Acknowledged jobs this listener has not received (the first ten), each with what
	 * Redis holds for it: a failure says whether the job is lost or only late.
	 */
	List<String> undelivered(RedeqClient client, Set<String> acknowledged) {
		return acknowledged.stream()
			.filter((id) -> !this.byId.containsKey(id))
			.sorted()
			.limit(10)
			.map((id) -> id + ": " + client.find("orders", id).map(Object::toString).orElse("not in Redis"))
			.toList();
	}

}
