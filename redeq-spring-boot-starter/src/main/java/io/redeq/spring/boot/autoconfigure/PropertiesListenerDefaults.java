package io.redeq.spring.boot.autoconfigure;

import java.util.Map;

import io.redeq.SubscriptionOptions;
import io.redeq.spring.listener.ListenerDefaults;

/**
 * Listener defaults from {@code redeq.topics.<topic>.*}, validated once at startup.
 */
final class PropertiesListenerDefaults implements ListenerDefaults {

	private final Map<String, RedeqProperties.Topic> topics;

	private final RedeqProperties.Backoff defaultBackoff;

	PropertiesListenerDefaults(Map<String, RedeqProperties.Topic> topics, RedeqProperties.Backoff defaultBackoff) {
		this.topics = Map.copyOf(topics);
		this.defaultBackoff = defaultBackoff;
		// Fail at startup, not when a listener of the topic starts.
		this.topics.forEach((topic, settings) -> RedeqPropertiesMapper.topicOptions(topic, settings, defaultBackoff));
	}

	@Override
	public SubscriptionOptions.Builder forTopic(String topic) {
		RedeqProperties.Topic settings = this.topics.get(topic);
		return (settings != null) ? RedeqPropertiesMapper.topicOptions(topic, settings, this.defaultBackoff)
				: SubscriptionOptions.builder();
	}

	Map<String, RedeqProperties.Topic> topics() {
		return this.topics;
	}

}
