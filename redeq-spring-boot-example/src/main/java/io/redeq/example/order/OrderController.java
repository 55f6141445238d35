package io.redeq.example.order;

import java.util.Collection;
import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders {"item": "book"}} places an order, {@code POST /orders/{id}/pay}
 * pays it, {@code POST /orders/pay-all} pays every open order (their timeouts cancelled
 * in one call), {@code GET /orders[/{id}]} shows them.
 */
@RestController
@RequestMapping("/orders")
class OrderController {

	private final OrderService orders;

	OrderController(OrderService orders) {
		this.orders = orders;
	}

	@PostMapping
	ResponseEntity<Order> create(@RequestBody(required = false) Map<String, String> body) {
		String item = (body != null) ? body.getOrDefault("item", "something") : "something";
		return ResponseEntity.status(HttpStatus.CREATED).body(this.orders.create(item));
	}

	@PostMapping("/{id}/pay")
	ResponseEntity<Order> pay(@PathVariable long id) {
		return ResponseEntity.of(this.orders.pay(id));
	}

	@PostMapping("/pay-all")
	Map<String, Long> payAll() {
		return this.orders.payAll();
	}

	@GetMapping("/{id}")
	ResponseEntity<Order> find(@PathVariable long id) {
		return ResponseEntity.of(this.orders.find(id));
	}

	@GetMapping
	Collection<Order> all() {
		return this.orders.all();
	}

}
