package io.redeq.spring.internal.listener;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

import io.redeq.Redeq;
import io.redeq.Subscription;
import io.redeq.SubscriptionOptions;
import io.redeq.internal.control.RateLimit;

/**
 * Owns the subscriptions of every {@link io.redeq.spring.RedeqListener @RedeqListener}
 * method; the subscriptions are not beans. A {@link SmartLifecycle} in a late phase, like
 * spring-kafka's listener containers: listeners start once every other bean is ready and
 * stop first on shutdown (gracefully, within {@code redeq.shutdown-timeout}, all topics
 * in parallel), well before the Redis connection factory stops.
 *
 * @since 0.1.0
 */
public class RedeqListenerEndpointRegistry implements SmartLifecycle {

	/** The phase listeners run in; the same late phase as spring-kafka's containers. */
	public static final int DEFAULT_PHASE = Integer.MAX_VALUE - 100;

	private static final Log logger = LogFactory.getLog(RedeqListenerEndpointRegistry.class);

	private final Redeq redeq;

	private final ListenerDefaults defaults;

	private final Map<String, ListenerMethod> listeners = new LinkedHashMap<>();

	private final Map<String, Subscription> subscriptions = new LinkedHashMap<>();

	private boolean running;

	public RedeqListenerEndpointRegistry(Redeq redeq, ListenerDefaults defaults) {
		this.redeq = redeq;
		this.defaults = defaults;
	}

	/**
	 * Adds a listener; it is subscribed when the registry starts, or at once if it is
	 * running.
	 * @throws InvalidRedeqListenerException if another listener has the same topic
	 */
	public synchronized void register(ListenerMethod listener) {
		if (this.defaults.forwarded(listener.topic())) {
			throw new InvalidRedeqListenerException(listener.description(),
					"listens to topic '" + listener.topic() + "', whose jobs are forwarded to RabbitMQ (redeq.topics."
							+ listener.topic() + ".forward.*); a forwarded topic has no listener. Remove the "
							+ "listener, or the topic's forward settings");
		}
		ListenerMethod existing = this.listeners.get(listener.topic());
		if (existing != null) {
			throw new InvalidRedeqListenerException(listener.description(),
					"listens to topic '" + listener.topic() + "', which " + existing.description()
							+ " already listens to; a topic has one listener per application. Merge them into one "
							+ "method, or give one of them another topic");
		}
		this.listeners.put(listener.topic(), listener);
		if (this.running) {
			subscribe(listener);
		}
	}

	/**
	 * Every registered listener, by topic; a method listening to several topics is there
	 * once per topic.
	 */
	public synchronized Map<String, ListenerMethod> listeners() {
		return Collections.unmodifiableMap(new LinkedHashMap<>(this.listeners));
	}

	/** The running subscription of a topic, or {@code null}. */
	public synchronized @Nullable Subscription subscription(String topic) {
		return this.subscriptions.get(topic);
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.listeners.values().forEach(this::subscribe);
		if (!this.listeners.isEmpty()) {
			logger.info("redeq listeners started for topics " + this.listeners.keySet());
		}
	}

	private void subscribe(ListenerMethod listener) {
		SubscriptionOptions options = subscriptionOptions(listener);
		Subscription subscription = this.redeq.subscribe(listener.topic(), listener.payloadType(),
				new ListenerMethodHandler(listener, this.defaults.notRetryable(listener.topic())), options);
		this.subscriptions.put(listener.topic(), subscription);
	}

	/**
	 * The settings a listener is subscribed with: its annotation's values over the
	 * topic's {@code redeq.topics.*} overrides; what is still unset falls back to the
	 * engine's defaults.
	 */
	public SubscriptionOptions subscriptionOptions(ListenerMethod listener) {
		SubscriptionOptions.Builder builder = this.defaults.forTopic(listener.topic());
		if (listener.concurrency() != null) {
			builder.concurrency(listener.concurrency());
		}
		if (listener.maxAttempts() != null) {
			builder.maxAttempts(listener.maxAttempts());
		}
		if (listener.timeout() != null) {
			builder.timeout(listener.timeout());
		}
		if (listener.rateLimit() != null) {
			RateLimit limit = RateLimit.parse(listener.rateLimit());
			builder.rateLimit(limit.permits(), limit.window());
		}
		return builder.build();
	}

	@Override
	public void stop() {
		stopSubscriptions();
	}

	@Override
	public void stop(Runnable callback) {
		try {
			stopSubscriptions();
		}
		finally {
			callback.run();
		}
	}

	/**
	 * Closes every subscription at once, each on its own thread, so that the whole stop
	 * takes at most one {@code redeq.shutdown-timeout}, not one per topic.
	 */
	private void stopSubscriptions() {
		Collection<Subscription> closing;
		synchronized (this) {
			if (!this.running) {
				return;
			}
			this.running = false;
			closing = new ArrayList<>(this.subscriptions.values());
			this.subscriptions.clear();
		}
		List<Thread> threads = new ArrayList<>();
		for (Subscription subscription : closing) {
			Thread thread = new Thread(subscription::close, "redeq-stop-" + subscription.topic());
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
		if (!closing.isEmpty()) {
			logger.info("redeq listeners stopped for topics " + this.listeners.keySet());
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return DEFAULT_PHASE;
	}

}
