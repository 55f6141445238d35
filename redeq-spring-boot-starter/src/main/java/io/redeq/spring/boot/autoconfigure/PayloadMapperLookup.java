package io.redeq.spring.boot.autoconfigure;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The one place the starter finds the Jackson mapper for payloads: the engine's codec,
 * the payloads of the {@code redeq.recurring.*} jobs and the journal's relay and recovery
 * all use the mapper found here. It is the application's single {@link JsonMapper} bean,
 * else its single {@link ObjectMapper} bean, else the engine's own default: a plain
 * {@link JsonMapper} with the Jackson modules found on the class path.
 */
final class PayloadMapperLookup {

	private PayloadMapperLookup() {
	}

	static ObjectMapper payloadMapper(ObjectProvider<JsonMapper> jsonMapper,
			ObjectProvider<ObjectMapper> objectMapper) {
		ObjectMapper mapper = jsonMapper.getIfUnique();
		if (mapper == null) {
			mapper = objectMapper.getIfUnique();
		}
		return (mapper != null) ? mapper : JsonMapper.builder().findAndAddModules().build();
	}

}
