package io.redeq.spring.boot.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

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

	@Test
	void metadataDefaultsAreTheFieldsInitialValues() throws IOException {
		JsonNode metadata;
		try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
			metadata = JsonMapper.builder().build().readTree(in);
		}
		BeanWrapper fresh = PropertyAccessorFactory.forBeanPropertyAccess(new RedeqProperties());
		List<String> checked = new ArrayList<>();
		for (JsonNode property : metadata.get("properties")) {
			String name = property.get("name").asString();
			JsonNode defaultValue = property.get("defaultValue");
			if (!name.startsWith("redeq.") || defaultValue == null) {
				continue;
			}
			String path = beanPath(name.substring("redeq.".length()));
			Class<?> type = fresh.getPropertyType(path);
			Object documented = ApplicationConversionService.getSharedInstance().convert(defaultValue.asString(), type);
			assertThat(documented).as(name).isEqualTo(fresh.getPropertyValue(path));
			checked.add(name);
		}
		assertThat(checked).contains("redeq.prefix", "redeq.max-payload-size", "redeq.consumer.backoff.multiplier",
				"redeq.durability.wait-timeout", "redeq.health.ready-wait-threshold");
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
