package io.redeq.example.order;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.redeq.Job;
import io.redeq.RedeqClient;

/**
 * Places, pays and cancels orders (read from memory; placed orders are also inserted in
 * the database, in the transaction that schedules their timeout). Each new order gets an
 * {@code order.timeout} job with the order's id as the job id, so paying can cancel
 * exactly that job.
 */
@Service
public class OrderService {

	static final String TIMEOUT_TOPIC = "order.timeout";

	private static final Logger logger = LoggerFactory.getLogger(OrderService.class);

	private final Map<Long, Order> orders = new ConcurrentHashMap<>();

	private final AtomicLong ids = new AtomicLong();

	private final RedeqClient redeq;

	private final Duration paymentTimeout;

	private final JdbcTemplate jdbc;

	OrderService(RedeqClient redeq, JdbcTemplate jdbc,
			@Value("${example.order.payment-timeout:30s}") Duration paymentTimeout) {
		this.redeq = redeq;
		this.jdbc = jdbc;
		this.paymentTimeout = paymentTimeout;
	}

	/**
	 * Places an order: its row and its timeout job commit together. With the journal on,
	 * the job is written to redeq's outbox table in this transaction and sent to Redis
	 * after the commit; if the application died in between, any instance sends it later.
	 * On rollback neither exists.
	 */
	@Transactional
	public Order create(String item) {
		long id = this.ids.incrementAndGet();
		Instant now = Instant.now();
		Order order = new Order(id, item, Order.Status.AWAITING_PAYMENT, now, now.plus(this.paymentTimeout));
		this.jdbc.update("INSERT INTO orders (id, item, created_at) VALUES (?, ?, ?)", id, item, Timestamp.from(now));
		this.orders.put(id, order);
		this.redeq.schedule(Job.builder(TIMEOUT_TOPIC)
			.id(jobId(id))
			.payload(new OrderTimeout(id))
			.delay(this.paymentTimeout)
			.build());
		logger.info("Order {} ({}) created; it will be cancelled at {} unless paid", id, item, clock(order.payBy()));
		return order;
	}

	/** Pays an order still awaiting payment, and cancels its timeout. */
	public Optional<Order> pay(long id) {
		Order paid = this.orders.computeIfPresent(id, (key, order) -> (order.status() == Order.Status.AWAITING_PAYMENT)
				? order.with(Order.Status.PAID) : order);
		if (paid == null) {
			return Optional.empty();
		}
		if (paid.status() == Order.Status.PAID) {
			boolean cancelled = this.redeq.cancel(TIMEOUT_TOPIC, jobId(id));
			logger.info("Order {} paid; {}", id,
					cancelled ? "its timeout is cancelled" : "its timeout had already started and will find it paid");
		}
		else {
			logger.info("Order {} cannot be paid: it is {}", id, paid.status());
		}
		return Optional.of(paid);
	}

	/**
	 * Pays every order still awaiting payment (a customer settling everything at once)
	 * and cancels their timeouts with one {@code cancelAll}: one pipelined round to
	 * Redis, not one cancel per order.
	 * @return how many orders were paid and how many timeouts were cancelled
	 */
	public Map<String, Long> payAll() {
		List<String> timeouts = new ArrayList<>();
		for (Order order : this.orders.values()) {
			Order paid = this.orders.computeIfPresent(order.id(),
					(key, current) -> (current.status() == Order.Status.AWAITING_PAYMENT)
							? current.with(Order.Status.PAID) : current);
			if (paid != null && paid.status() == Order.Status.PAID && order.status() == Order.Status.AWAITING_PAYMENT) {
				timeouts.add(jobId(order.id()));
			}
		}
		long cancelled = timeouts.isEmpty() ? 0 : this.redeq.cancelAll(TIMEOUT_TOPIC, timeouts);
		logger.info("Paid {} orders at once; cancelled {} of their timeouts", timeouts.size(), cancelled);
		return Map.of("paid", (long) timeouts.size(), "timeoutsCancelled", cancelled);
	}

	/** Cancels an order that is still unpaid; called when its timeout is due. */
	void cancelUnpaid(long id) {
		Order before = this.orders.get(id);
		Order after = this.orders.computeIfPresent(id, (key, order) -> (order.status() == Order.Status.AWAITING_PAYMENT)
				? order.with(Order.Status.CANCELLED) : order);
		if (after == null) {
			logger.info("Timeout for order {}: no such order (this demo keeps orders in memory only)", id);
		}
		else if (before != null && before.status() == Order.Status.AWAITING_PAYMENT
				&& after.status() == Order.Status.CANCELLED) {
			logger.info("Order {} was not paid within {}s; cancelled it", id, this.paymentTimeout.toSeconds());
		}
		else {
			logger.info("Timeout for order {}: nothing to do, it is {}", id, after.status());
		}
	}

	public Optional<Order> find(long id) {
		return Optional.ofNullable(this.orders.get(id));
	}

	public Collection<Order> all() {
		return this.orders.values();
	}

	static String jobId(long orderId) {
		return "order-" + orderId;
	}

	private static LocalTime clock(Instant instant) {
		return LocalTime.ofInstant(instant, ZoneId.systemDefault()).truncatedTo(ChronoUnit.SECONDS);
	}

}
