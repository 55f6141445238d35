package io.redeq.spring.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * Reads {@code redeq.topics.<topic>.*}, where topic names contain dots
 * ({@code order.timeout}). Spring Boot binds a map of objects by the first segment of the
 * key only, so {@code redeq.topics.order.timeout.concurrency} would land under topic
 * {@code order}; users would have to write {@code "[order.timeout]"} in YAML. Instead,
 * this class recognises each known setting at the end of a key and takes everything
 * between {@code redeq.topics} and it as the topic, so both spellings work.
 */
final class TopicOverrides {

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("redeq.topics");

	/**
	 * Settings of a topic, longest first so that {@code backoff.max} wins over a topic
	 * named "backoff".
	 */
	private static final List<List<String>> SETTINGS = List.of(List.of("backoff", "initial"),
			List.of("backoff", "multiplier"), List.of("backoff", "max"), List.of("backoff", "jitter"),
			List.of("concurrency"), List.of("timeout"), List.of("max-attempts"), List.of("rate-limit"),
			List.of("not-retryable"), List.of("forward", "exchange"), List.of("forward", "routing-key"));

	private TopicOverrides() {
	}

	static Map<String, RedeqProperties.Topic> resolve(Environment environment, RedeqProperties properties) {
		Map<String, ConfigurationPropertyName> topicNames = new LinkedHashMap<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.filter(ROOT::isAncestorOf).forEach((name) -> {
					ConfigurationPropertyName topicName = topicName(name);
					if (topicName != null) {
						topicNames.putIfAbsent(topic(topicName), topicName);
					}
				});
			}
		}
		Binder binder = Binder.get(environment);
		Map<String, RedeqProperties.Topic> topics = new LinkedHashMap<>();
		topicNames.forEach((topic, name) -> topics.put(topic,
				binder.bind(name, Bindable.of(RedeqProperties.Topic.class)).orElseGet(RedeqProperties.Topic::new)));
		// Topics set on the properties object directly (not from the environment).
		properties.getTopics().forEach(topics::putIfAbsent);
		return topics;
	}

	private static @Nullable ConfigurationPropertyName topicName(ConfigurationPropertyName name) {
		// A list's elements (not-retryable[0] in YAML) belong to the list's setting.
		while (name.isLastElementIndexed()) {
			name = name.getParent();
		}
		int size = name.getNumberOfElements();
		int rootSize = ROOT.getNumberOfElements();
		for (List<String> setting : SETTINGS) {
			if (size - rootSize > setting.size() && endsWith(name, setting)) {
				return name.chop(size - setting.size());
			}
		}
		return null;
	}

	private static boolean endsWith(ConfigurationPropertyName name, List<String> setting) {
		int offset = name.getNumberOfElements() - setting.size();
		return IntStream.range(0, setting.size())
			.allMatch((i) -> setting.get(i).equals(name.getElement(offset + i, Form.DASHED)));
	}

	private static String topic(ConfigurationPropertyName topicName) {
		return IntStream.range(ROOT.getNumberOfElements(), topicName.getNumberOfElements())
			.mapToObj((i) -> topicName.getElement(i, Form.ORIGINAL))
			.collect(Collectors.joining("."));
	}

}
