package io.redeq;

import java.util.function.BiFunction;

import org.jspecify.annotations.Nullable;

import io.redeq.internal.consumer.ConsumerContext;
import io.redeq.internal.consumer.TopicConsumer;

/**
 * The handle an application holds for one topic's subscription. Its consumer works on the
 * bucket layout the engine runs on; when the engine follows a change of the bucket count,
 * the handle takes a new consumer on the new layout and the old one stops, so the
 * application's handle stays the one to close.
 */
final class TopicSubscription implements Subscription {

	private final String topic;

	/** Makes a consumer on a layout's context, with what it runs when it closes. */
	private final BiFunction<ConsumerContext, Runnable, TopicConsumer> create;

	/** Takes the handle out of the engine's registry; may run more than once. */
	private final Runnable onClosed;

	/** Guarded by this. */
	private @Nullable TopicConsumer consumer;

	/** Guarded by this. */
	private boolean closed;

	TopicSubscription(String topic, BiFunction<ConsumerContext, Runnable, TopicConsumer> create, Runnable onClosed) {
		this.topic = topic;
		this.create = create;
		this.onClosed = onClosed;
	}

	/**
	 * Starts the first consumer, on the layout the engine runs on.
	 * @param context the layout's consumer context
	 */
	void start(ConsumerContext context) {
		TopicConsumer first;
		synchronized (this) {
			first = newConsumer(context);
			this.consumer = first;
		}
		first.start();
	}

	/**
	 * Starts a consumer on another layout in place of the current one, unless the
	 * subscription is closed.
	 * @param context the new layout's consumer context
	 * @return the consumer replaced, for the caller to close, or {@code null}
	 */
	@Nullable TopicConsumer moveTo(ConsumerContext context) {
		TopicConsumer replaced;
		TopicConsumer next;
		synchronized (this) {
			if (this.closed || this.consumer == null) {
				return null;
			}
			replaced = this.consumer;
			next = newConsumer(context);
			this.consumer = next;
		}
		next.start();
		return replaced;
	}

	private TopicConsumer newConsumer(ConsumerContext context) {
		TopicConsumer[] made = new TopicConsumer[1];
		made[0] = this.create.apply(context, () -> consumerClosed(made[0]));
		return made[0];
	}

	/**
	 * A consumer stopped: the current one ends the subscription, one replaced by a move
	 * does not.
	 * @param which the consumer that stopped
	 */
	private void consumerClosed(TopicConsumer which) {
		synchronized (this) {
			if (which != this.consumer) {
				return;
			}
			this.closed = true;
		}
		this.onClosed.run();
	}

	@Override
	public String topic() {
		return this.topic;
	}

	/**
	 * How many jobs of the topic this subscription runs at once.
	 * @return the concurrency
	 */
	int concurrency() {
		TopicConsumer current = current();
		return (current != null) ? current.concurrency() : 0;
	}

	@Override
	public boolean isRunning() {
		TopicConsumer current;
		synchronized (this) {
			if (this.closed) {
				return false;
			}
			current = this.consumer;
		}
		return current != null && current.isRunning();
	}

	@Override
	public void close() {
		TopicConsumer current;
		synchronized (this) {
			this.closed = true;
			current = this.consumer;
		}
		if (current != null) {
			current.close();
		}
		this.onClosed.run();
	}

	private synchronized @Nullable TopicConsumer current() {
		return this.consumer;
	}

}
