package io.redeq;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

import io.redeq.internal.consumer.TopicConsumer;

/**
 * The running subscriptions of one {@link Redeq} engine, at most one per topic: a
 * subscription leaves when it is closed, and {@link #closeAll()} stops every one, in
 * parallel.
 */
final class SubscriptionRegistry {

	private final Map<String, TopicConsumer> byTopic = new ConcurrentHashMap<>();

	/**
	 * Creates the topic's consumer with {@code create}, which gets the callback the
	 * consumer runs when it is closed, and registers it; refuses a second one for a
	 * topic.
	 * @param topic the topic subscribed to
	 * @param create makes the consumer from the callback it runs when closed
	 * @return the registered consumer
	 * @throws IllegalStateException if the topic already has a subscription here
	 */
	TopicConsumer register(String topic, Function<Runnable, TopicConsumer> create) {
		TopicConsumer[] created = new TopicConsumer[1];
		TopicConsumer consumer = this.byTopic.computeIfAbsent(topic, (t) -> {
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
		for (TopicConsumer consumer : this.byTopic.values()) {
			listeners.add(
					new InstanceInfo.Listener(consumer.topic(), consumer.concurrency(), paused.test(consumer.topic())));
		}
		return listeners;
	}

	/**
	 * Closes every subscription, each on its own thread so their graceful stops overlap,
	 * and waits for all of them.
	 */
	void closeAll() {
		List<Thread> closing = new ArrayList<>();
		for (TopicConsumer consumer : this.byTopic.values()) {
			Thread thread = new Thread(consumer::close, "redeq-close-" + consumer.topic());
			thread.start();
			closing.add(thread);
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
