package io.redeq.spring.boot.autoconfigure;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.lang.model.SourceVersion;

import io.redeq.SubscriptionOptions;
import io.redeq.spring.internal.listener.ListenerDefaults;

/**
 * Listener defaults from {@code redeq.topics.<topic>.*}, validated once at startup.
 */
final class PropertiesListenerDefaults implements ListenerDefaults {

	private final Map<String, RedeqProperties.Topic> topics;

	private final RedeqProperties.Backoff defaultBackoff;

	private final Set<String> defaultNotRetryable;

	PropertiesListenerDefaults(Map<String, RedeqProperties.Topic> topics, RedeqProperties.Backoff defaultBackoff) {
		this(topics, defaultBackoff, List.of());
	}

	PropertiesListenerDefaults(Map<String, RedeqProperties.Topic> topics, RedeqProperties.Backoff defaultBackoff,
			List<String> defaultNotRetryable) {
		this.topics = Map.copyOf(topics);
		this.defaultBackoff = defaultBackoff;
		this.defaultNotRetryable = classNames("redeq.consumer.not-retryable", defaultNotRetryable);
		this.topics.forEach((topic, settings) -> {
			if (settings.getNotRetryable() != null) {
				classNames("redeq.topics." + topic + ".not-retryable", settings.getNotRetryable());
			}
		});
		// Fail at startup, not when a listener of the topic starts.
		this.topics.forEach((topic, settings) -> RedeqPropertiesMapper.topicOptions(topic, settings, defaultBackoff));
	}

	@Override
	public SubscriptionOptions.Builder forTopic(String topic) {
		RedeqProperties.Topic settings = this.topics.get(topic);
		return (settings != null) ? RedeqPropertiesMapper.topicOptions(topic, settings, this.defaultBackoff)
				: SubscriptionOptions.builder();
	}

	@Override
	public Set<String> notRetryable(String topic) {
		RedeqProperties.Topic settings = this.topics.get(topic);
		if (settings == null || settings.getNotRetryable() == null) {
			return this.defaultNotRetryable;
		}
		return classNames("redeq.topics." + topic + ".not-retryable", settings.getNotRetryable());
	}

	@Override
	public boolean forwarded(String topic) {
		RedeqProperties.Topic settings = this.topics.get(topic);
		return settings != null && settings.getForward().isConfigured();
	}

	/**
	 * Checks the names without loading the classes: an exception class may live in a jar
	 * that only some deployments carry.
	 */
	private static Set<String> classNames(String property, List<String> names) {
		Set<String> checked = new LinkedHashSet<>();
		for (String name : names) {
			String trimmed = (name != null) ? name.trim() : "";
			if (!SourceVersion.isName(trimmed)) {
				throw new IllegalArgumentException(
						property + " must list fully qualified exception class names, but has '" + name + "'");
			}
			checked.add(trimmed);
		}
		return Set.copyOf(checked);
	}

	Map<String, RedeqProperties.Topic> topics() {
		return this.topics;
	}

}
