package io.redeq.internal.redis.connection;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ExactUtf8Codec} puts on the wire exactly what {@link StringCodec#UTF8} does, for
 * ASCII, multi-byte characters, surrogate pairs and an unpaired surrogate, and its size
 * estimate is the encoded length.
 */
class ExactUtf8CodecTests {

	@ParameterizedTest
	@ValueSource(strings = { "", "orders:job-42", "{\"note\":\"caf\u00e9 \u4e2d\u6587\"}", "emoji \ud83d\ude00 end",
			"unpaired \ud83d here", "tail \udc00" })
	void encodesArgumentsAsStringCodecUtf8Does(String text) {
		assertThat(ExactUtf8Codec.INSTANCE.estimateSize(text))
			.isEqualTo(bytes(StringCodec.UTF8.encodeValue(text)).length);
		assertThat(onTheWire(ExactUtf8Codec.INSTANCE, text)).isEqualTo(onTheWire(StringCodec.UTF8, text));
		assertThat(ExactUtf8Codec.INSTANCE.decodeValue(ByteBuffer.wrap(bytes(StringCodec.UTF8.encodeValue(text)))))
			.isEqualTo(StringCodec.UTF8.decodeValue(StringCodec.UTF8.encodeValue(text)));
	}

	@Test
	void aNullArgumentIsAnEmptyString() {
		assertThat(ExactUtf8Codec.INSTANCE.estimateSize(null)).isZero();
		assertThat(onTheWire(ExactUtf8Codec.INSTANCE, null)).isEqualTo(onTheWire(StringCodec.UTF8, null));
	}

	/** A key and a value argument, encoded as Lettuce writes them into a command. */
	private static String onTheWire(StringCodec codec, String text) {
		CommandArgs<String, String> args = new CommandArgs<>(codec).addKey(text).addValue(text);
		ByteBuf target = Unpooled.buffer();
		try {
			args.encode(target);
			return target.toString(StandardCharsets.ISO_8859_1);
		}
		finally {
			target.release();
		}
	}

	private static byte[] bytes(ByteBuffer buffer) {
		byte[] bytes = new byte[buffer.remaining()];
		buffer.duplicate().get(bytes);
		return bytes;
	}

}
