package io.redeq;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

import io.redeq.internal.consumer.ConsumerContext;
import io.redeq.internal.consumer.TopicConsumer;

/**
 * The running subscriptions of one {@link Redeq} engine, at most one per topic: a
 * subscription leaves when it is closed, and {@link #closeAll()} stops every one, in
 * parallel.
 */
final class SubscriptionRegistry {

	private final Map<String, TopicSubscription> byTopic = new ConcurrentHashMap<>();

	/**
	 * Creates the topic's subscription with {@code create}, which gets the callback the
	 * subscription runs when it is closed, and registers it; refuses a second one for a
	 * topic.
	 * @param topic the topic subscribed to
	 * @param create makes the subscription from the callback it runs when closed
	 * @return the registered subscription
	 * @throws IllegalStateException if the topic already has a subscription here
	 */
	TopicSubscription register(String topic, Function<Runnable, TopicSubscription> create) {
		TopicSubscription[] created = new TopicSubscription[1];
		TopicSubscription consumer = this.byTopic.computeIfAbsent(topic, (t) -> {
			created[0] = create.apply(() -> this.byTopic.remove(t, created[0]));
			return created[0];
		});
		if (consumer != created[0]) {
			throw new IllegalStateException("Topic '" + topic
					+ "' already has a subscription in this redeq engine; a topic has one handler per application. Close it first");
		}
		return consumer;
	}

	Set<String> topics() {
		return Set.copyOf(this.byTopic.keySet());
	}

	/**
	 * The running subscriptions as an instance describes them to the others.
	 * @param paused whether a topic is paused
	 * @return one listener per topic
	 */
	List<InstanceInfo.Listener> listeners(Predicate<String> paused) {
		List<InstanceInfo.Listener> listeners = new ArrayList<>();
		for (TopicSubscription consumer : this.byTopic.values()) {
			listeners.add(
					new InstanceInfo.Listener(consumer.topic(), consumer.concurrency(), paused.test(consumer.topic())));
		}
		return listeners;
	}

	/**
	 * Moves every subscription to a consumer on another bucket layout, and closes the
	 * consumers they had in the background (gracefully: their running jobs finish).
	 * @param context the new layout's consumer context
	 */
	void moveAll(ConsumerContext context) {
		for (TopicSubscription subscription : this.byTopic.values()) {
			TopicConsumer replaced = subscription.moveTo(context);
			if (replaced != null) {
				closeInBackground(replaced::close, subscription.topic());
			}
		}
	}

	private static Thread closeInBackground(Runnable close, String topic) {
		Thread thread = new Thread(close, "redeq-close-" + topic);
		thread.start();
		return thread;
	}

	/**
	 * Closes every subscription, each on its own thread so their graceful stops overlap,
	 * and waits for all of them.
	 */
	void closeAll() {
		List<Thread> closing = new ArrayList<>();
		for (TopicSubscription subscription : this.byTopic.values()) {
			closing.add(closeInBackground(subscription::close, subscription.topic()));
		}
		for (Thread thread : closing) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
