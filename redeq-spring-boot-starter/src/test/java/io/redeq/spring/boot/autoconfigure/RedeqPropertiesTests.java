package io.redeq.spring.boot.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.PropertyAccessorFactory;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedeqProperties}: the defaults its configuration metadata shows in
 * IDEs are the values a fresh instance holds. Spring Boot's annotation processor cannot
 * read the {@code RedeqOptions.DEFAULT_*} constants the fields start from, so
 * {@code additional-spring-configuration-metadata.json} states them, and this test keeps
 * it honest.
 */
class RedeqPropertiesTests {

	/** Keys that have no default, whose descriptions say so. */
	private static final Set<String> WITHOUT_DEFAULT = Set.of("redeq.consumer.prefetch", "redeq.topics.*.rate-limit",
			"redeq.recurring.*.topic", "redeq.recurring.*.cron", "redeq.recurring.*.every", "redeq.recurring.*.payload",
			"redeq.topics.*.forward.exchange", "redeq.topics.*.forward.routing-key");

	private static final String TOPIC_KEY = "redeq.topics.*.";

	@Test
	void metadataDefaultsAreTheFieldsInitialValues() throws IOException {
		JsonNode metadata = metadata();
		BeanWrapper fresh = PropertyAccessorFactory.forBeanPropertyAccess(new RedeqProperties());
		List<String> checked = new ArrayList<>();
		for (JsonNode property : metadata.get("properties")) {
			String name = property.get("name").asString();
			JsonNode defaultValue = property.get("defaultValue");
			if (!name.startsWith("redeq.") || defaultValue == null || name.startsWith("redeq.topics")
					|| name.startsWith("redeq.recurring")) {
				continue;
			}
			String path = beanPath(name.substring("redeq.".length()));
			Class<?> type = fresh.getPropertyType(path);
			// A list's default is a JSON array; as a property value
			// it is comma-separated.
			String text = defaultValue.isArray()
					? String.join(",", defaultValue.valueStream().map(JsonNode::asString).toList())
					: defaultValue.asString();
			Object documented = ApplicationConversionService.getSharedInstance().convert(text, type);
			assertThat(documented).as(name).isEqualTo(fresh.getPropertyValue(path));
			checked.add(name);
		}
		assertThat(checked).contains("redeq.prefix", "redeq.max-payload-size", "redeq.consumer.backoff.multiplier",
				"redeq.durability.wait-timeout", "redeq.health.ready-wait-threshold");
	}

	@Test
	void everyKeyHasADescriptionAndADefault() throws IOException {
		List<String> keys = new ArrayList<>();
		for (JsonNode property : metadata().get("properties")) {
			String name = property.get("name").asString();
			if (!name.startsWith("redeq.")) {
				continue;
			}
			keys.add(name);
			JsonNode description = property.get("description");
			assertThat(description).as(name + " has a description").isNotNull();
			assertThat(description.asString()).as(name + "'s description").isNotBlank().endsWith(".");
			if (WITHOUT_DEFAULT.contains(name)) {
				assertThat(description.asString()).as(name + " says it has no default").contains("no default");
			}
			else {
				assertThat(property.get("defaultValue")).as(name + " has a default").isNotNull();
			}
		}
		assertThat(keys).as("keys described")
			.hasSizeGreaterThan(30)
			.contains("redeq.topics.*.concurrency")
			.containsAll(WITHOUT_DEFAULT);
	}

	/**
	 * The processor describes {@code redeq.topics} as one map; each setting a topic can
	 * override is listed by hand. Its default is the {@code redeq.consumer.*} key it
	 * falls back to, which its description names.
	 */
	@Test
	void everyPerTopicSettingIsDescribedWithTheDefaultOfItsFallback() throws IOException {
		Map<String, JsonNode> properties = new LinkedHashMap<>();
		metadata().get("properties").forEach((property) -> properties.put(property.get("name").asString(), property));
		assertThat(properties.get("redeq.topics").get("defaultValue").isEmpty()).as("redeq.topics defaults to {}")
			.isTrue();
		assertThat(new RedeqProperties().getTopics()).isEmpty();

		List<String> topicSettings = new ArrayList<>(settings(RedeqProperties.Topic.class, ""));
		topicSettings.addAll(settings(RedeqProperties.TopicBackoff.class, "backoff."));
		topicSettings.addAll(settings(RedeqProperties.TopicForward.class, "forward."));
		assertThat(properties.keySet().stream().filter((name) -> name.startsWith(TOPIC_KEY)))
			.as("per-topic keys in the metadata")
			.containsExactlyInAnyOrderElementsOf(topicSettings.stream().map((key) -> TOPIC_KEY + key).toList());
		for (String key : topicSettings) {
			if (key.equals("rate-limit") || key.startsWith("forward.")) {
				continue; // a topic's own settings, with no redeq.consumer.* fallback
			}
			JsonNode topicProperty = properties.get(TOPIC_KEY + key);
			String fallback = "redeq.consumer." + key;
			assertThat(properties).as(fallback).containsKey(fallback);
			assertThat(topicProperty.get("description").asString()).as(TOPIC_KEY + key).contains(fallback);
			assertThat(topicProperty.get("defaultValue")).as(TOPIC_KEY + key)
				.isEqualTo(properties.get(fallback).get("defaultValue"));
			assertThat(topicProperty.get("type")).as(TOPIC_KEY + key).isEqualTo(properties.get(fallback).get("type"));
		}
	}

	/**
	 * The processor describes {@code redeq.recurring} as one map too; each setting of a
	 * recurring job is listed by hand.
	 */
	@Test
	void everyRecurringJobSettingIsDescribed() throws IOException {
		Map<String, JsonNode> properties = new LinkedHashMap<>();
		metadata().get("properties").forEach((property) -> properties.put(property.get("name").asString(), property));
		assertThat(properties.get("redeq.recurring").get("defaultValue").isEmpty()).as("redeq.recurring defaults to {}")
			.isTrue();
		assertThat(properties.keySet().stream().filter((name) -> name.startsWith("redeq.recurring.*.")))
			.containsExactlyInAnyOrderElementsOf(settings(RedeqProperties.RecurringJob.class, "").stream()
				.map((key) -> "redeq.recurring.*." + key)
				.toList());
	}

	@Test
	void autoConfigurationConditionsAreWrittenForBootToReadWithoutLoadingClasses() throws IOException {
		Properties conditions = new Properties();
		try (InputStream in = new ClassPathResource("META-INF/spring-autoconfigure-metadata.properties")
			.getInputStream()) {
			conditions.load(in);
		}
		assertThat(conditions).containsKey(RedeqAutoConfiguration.class.getName() + ".ConditionalOnClass");
	}

	/**
	 * The dashed keys of a settings class's writable properties, with a prefix (nested
	 * groups such as {@code backoff} have no setter).
	 */
	private static List<String> settings(Class<?> type, String prefix) {
		BeanWrapper wrapper = PropertyAccessorFactory.forBeanPropertyAccess(BeanUtils.instantiateClass(type));
		return Stream.of(wrapper.getPropertyDescriptors())
			.filter((descriptor) -> descriptor.getWriteMethod() != null)
			.map((descriptor) -> descriptor.getName())
			.map((name) -> prefix + name.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT))
			.toList();
	}

	private static JsonNode metadata() throws IOException {
		try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
			return JsonMapper.builder().build().readTree(in);
		}
	}

	/** {@code dead-letter.retention} → {@code deadLetter.retention}. */
	private static String beanPath(String key) {
		return Stream.of(key.split("\\.")).map(RedeqPropertiesTests::camelCase).collect(Collectors.joining("."));
	}

	private static String camelCase(String dashed) {
		StringBuilder result = new StringBuilder();
		boolean upper = false;
		for (char c : dashed.toCharArray()) {
			if (c == '-') {
				upper = true;
			}
			else {
				result.append(upper ? Character.toUpperCase(c) : c);
				upper = false;
			}
		}
		return result.toString();
	}

}
