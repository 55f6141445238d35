package io.redeq.spring.internal.forward;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import io.redeq.internal.codec.JacksonPayloadCodec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RawJson}: what a forwarded job's body is, read through redeq's payload codec as
 * the consumer reads it.
 */
class RawJsonTests {

	private final JacksonPayloadCodec codec = new JacksonPayloadCodec(JsonMapper.builder().build());

	@Test
	void keepsNumbersAsWrittenAndTheStructure() {
		String json = "{\"amount\":12.30000000000000000001,\"big\":123456789012345678901234567890,"
				+ "\"tiny\":1E-400,\"list\":[1,\"a\",null,true,{\"x\":[]}],\"text\":\"caf\\u00e9 \\\"q\\\"\"}";
		RawJson raw = read(json);
		assertThat(raw.json()).isEqualTo("{\"amount\":12.30000000000000000001,\"big\":123456789012345678901234567890,"
				+ "\"tiny\":1E-400,\"list\":[1,\"a\",null,true,{\"x\":[]}],\"text\":\"café \\\"q\\\"\"}");
	}

	@Test
	void scalarsAndNullAreJsonToo() {
		assertThat(read("42").json()).isEqualTo("42");
		assertThat(read("\"hello\"").json()).isEqualTo("\"hello\"");
		assertThat(read("null").json()).isEqualTo("null");
	}

	private RawJson read(String json) {
		return (RawJson) this.codec.read(json, RawJson.class);
	}

}
