package io.redeq.spring.internal.forward;

import java.io.StringWriter;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * A job's payload as JSON text, the type a forwarding consumer reads payloads into. The
 * payload is copied token by token with exact numbers, so what goes to the broker is the
 * JSON the producer stored, whatever the application's mapper would make of it.
 *
 * @param json the payload's JSON
 */
@JsonDeserialize(using = RawJson.Reader.class)
record RawJson(String json) {

	static final RawJson NULL = new RawJson("null");

	/** Copies the current value of the parser, whatever its type, as JSON text. */
	static final class Reader extends ValueDeserializer<RawJson> {

		private static final JsonFactory FACTORY = new JsonFactory();

		@Override
		public RawJson deserialize(JsonParser parser, DeserializationContext context) {
			StringWriter text = new StringWriter();
			try (JsonGenerator generator = FACTORY.createGenerator(text)) {
				generator.copyCurrentStructureExact(parser);
			}
			return new RawJson(text.toString());
		}

		@Override
		public Object getNullValue(DeserializationContext context) {
			return NULL;
		}

	}

}
