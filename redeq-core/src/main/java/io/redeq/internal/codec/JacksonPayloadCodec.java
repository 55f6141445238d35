package io.redeq.internal.codec;

import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link PayloadCodec} on a Jackson 3 mapper: the application's own, or a plain
 * {@link JsonMapper}. Payloads are read only into the type the handler declares; a mapper
 * configured without default typing never instantiates a class named by the data, and no
 * Java serialisation is involved.
 */
public final class JacksonPayloadCodec implements PayloadCodec {

	private final ObjectMapper mapper;

	public JacksonPayloadCodec(@Nullable ObjectMapper mapper) {
		this.mapper = (mapper != null) ? mapper : JsonMapper.builder().findAndAddModules().build();
	}

	@Override
	public String write(@Nullable Object payload) {
		return this.mapper.writeValueAsString(payload);
	}

	@Override
	public @Nullable Object read(String json, Type type) {
		JavaType javaType = this.mapper.getTypeFactory().constructType(type);
		return this.mapper.readValue(json, javaType);
	}

}
