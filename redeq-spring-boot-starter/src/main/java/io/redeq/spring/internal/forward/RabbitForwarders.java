package io.redeq.spring.internal.forward;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.context.SmartLifecycle;

import io.redeq.Redeq;
import io.redeq.Subscription;
import io.redeq.SubscriptionOptions;
import io.redeq.spring.internal.listener.ListenerDefaults;
import io.redeq.spring.internal.listener.RedeqListenerEndpointRegistry;

/**
 * Owns the consumers of the topics forwarded to RabbitMQ: one subscription per topic,
 * with the topic's settings ({@code redeq.topics.<topic>.*}: concurrency, timeout,
 * attempts, backoff, rate limit), whose handler publishes each due job through the
 * application's {@link RabbitTemplate} and waits for the broker's confirm. Starts and
 * stops with the listeners, in the same late phase.
 *
 * @since 0.1.0
 */
public class RabbitForwarders implements SmartLifecycle {

	/** Confirm type and returns the forwarding needs from the connection factory. */
	static final String REQUIRED_SETTINGS = "spring.rabbitmq.publisher-confirm-type=correlated and "
			+ "spring.rabbitmq.publisher-returns=true";

	private static final Log logger = LogFactory.getLog(RabbitForwarders.class);

	private final Redeq redeq;

	private final ListenerDefaults defaults;

	private final @Nullable RabbitTemplate template;

	private final Map<String, ForwardTarget> targets;

	private final Map<String, Subscription> subscriptions = new LinkedHashMap<>();

	private boolean running;

	/**
	 * Checks that the template can confirm and return messages.
	 * @param redeq the engine
	 * @param defaults the topics' settings
	 * @param template the application's template; needed when a topic is forwarded
	 * @param targets the forwarded topics and where each goes
	 * @throws InvalidRedeqForwardException if the template's connection factory has no
	 * correlated publisher confirms or no returns, or the template is not mandatory
	 */
	public RabbitForwarders(Redeq redeq, ListenerDefaults defaults, @Nullable RabbitTemplate template,
			Map<String, ForwardTarget> targets) {
		this.redeq = redeq;
		this.defaults = defaults;
		this.template = template;
		this.targets = Map.copyOf(targets);
		if (!this.targets.isEmpty()) {
			if (template == null) {
				throw new InvalidRedeqForwardException("Topics " + this.targets.keySet()
						+ " are forwarded to RabbitMQ (redeq.topics.<topic>.forward.*), but there is no RabbitTemplate",
						"Add spring-boot-starter-amqp and configure spring.rabbitmq.*, or remove the topics' forward "
								+ "settings");
			}
			check(template, this.targets.keySet());
		}
	}

	private static void check(RabbitTemplate template, Collection<String> topics) {
		ConnectionFactory connectionFactory = template.getConnectionFactory();
		List<String> missing = new ArrayList<>();
		if (!connectionFactory.isPublisherConfirms()) {
			missing.add("correlated publisher confirms");
		}
		if (!connectionFactory.isPublisherReturns()) {
			missing.add("publisher returns");
		}
		if (!Boolean.TRUE.equals(template.isMandatoryFor(new Message(new byte[0], new MessageProperties())))) {
			missing.add("mandatory publishing on the RabbitTemplate");
		}
		if (!missing.isEmpty()) {
			throw new InvalidRedeqForwardException("Topics " + topics
					+ " are forwarded to RabbitMQ (redeq.topics.<topic>" + ".forward.*), which needs "
					+ String.join(", ", missing)
					+ ": redeq completes a job only once the broker confirmed it, and needs unroutable messages "
					+ "returned rather than dropped",
					"Set " + REQUIRED_SETTINGS + " (Spring Boot then makes its RabbitTemplate mandatory; do not "
							+ "set spring.rabbitmq.template.mandatory=false), or remove the topics' forward settings");
		}
	}

	/**
	 * The forwarded topics.
	 * @return each forwarded topic and where its jobs go
	 */
	public Map<String, ForwardTarget> targets() {
		return this.targets;
	}

	/** The running subscription of a forwarded topic, or {@code null}. */
	public synchronized @Nullable Subscription subscription(String topic) {
		return this.subscriptions.get(topic);
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		RabbitTemplate template = this.template;
		this.targets.forEach((topic, target) -> {
			SubscriptionOptions options = this.defaults.forTopic(topic).build();
			Duration confirmTimeout = confirmTimeout(options.timeout(this.redeq.options()));
			this.subscriptions.put(topic, this.redeq.subscribe(topic, RawJson.class,
					new RabbitForwardingHandler(template, target, confirmTimeout), options));
		});
		if (!this.targets.isEmpty()) {
			logger.info("redeq forwards topics to RabbitMQ: " + this.targets);
		}
	}

	/**
	 * A little less than the topic's timeout, so that a missing confirm fails the attempt
	 * with its own reason before the engine interrupts the handler.
	 */
	static Duration confirmTimeout(Duration timeout) {
		Duration margin = timeout.dividedBy(10);
		return timeout.minus((margin.compareTo(Duration.ofSeconds(1)) > 0) ? Duration.ofSeconds(1) : margin);
	}

	@Override
	public void stop() {
		Collection<Subscription> closing;
		synchronized (this) {
			if (!this.running) {
				return;
			}
			this.running = false;
			closing = new ArrayList<>(this.subscriptions.values());
			this.subscriptions.clear();
		}
		// All at once: the whole stop takes at most one redeq.shutdown-timeout.
		List<Thread> threads = new ArrayList<>();
		for (Subscription subscription : closing) {
			Thread thread = new Thread(subscription::close, "redeq-stop-forward-" + subscription.topic());
			thread.start();
			threads.add(thread);
		}
		for (Thread thread : threads) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return RedeqListenerEndpointRegistry.DEFAULT_PHASE;
	}

}
