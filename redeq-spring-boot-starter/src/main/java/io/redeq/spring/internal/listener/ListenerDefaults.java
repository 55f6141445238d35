package io.redeq.spring.internal.listener;

import java.util.Set;

import io.redeq.SubscriptionOptions;

/**
 * The configured settings of a topic's subscription before its
 * {@link io.redeq.spring.RedeqListener @RedeqListener} attributes are applied on top (in
 * Spring Boot: {@code redeq.topics.<topic>.*}; values left unset fall back to
 * {@code redeq.consumer.*}).
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface ListenerDefaults {

	/**
	 * Defaults that leave everything to the engine's {@code redeq.consumer.*} settings.
	 */
	ListenerDefaults ENGINE = (topic) -> SubscriptionOptions.builder();

	/** A fresh builder holding the topic's configured overrides. */
	SubscriptionOptions.Builder forTopic(String topic);

	/**
	 * The exception classes, by fully qualified name, that make a failing job of the
	 * topic's listener DEAD at once, as {@link io.redeq.NotRetryableException} does.
	 * @param topic the topic
	 * @return the class names, none by default
	 */
	default Set<String> notRetryable(String topic) {
		return Set.of();
	}

	/**
	 * Whether the topic's due jobs are forwarded to a message broker (in Spring Boot:
	 * {@code redeq.topics.<topic>.forward.*}); such a topic has no listener.
	 * @param topic the topic
	 * @return false by default
	 */
	default boolean forwarded(String topic) {
		return false;
	}

}
