package io.redeq.internal.redis.connection;

import java.nio.charset.StandardCharsets;

import io.lettuce.core.codec.StringCodec;
import io.netty.buffer.ByteBufUtil;

/**
 * Lettuce's UTF-8 string codec, telling Lettuce each argument's exact encoded size.
 *
 * <p>
 * Lettuce writes an argument straight into the command's buffer only when the codec's
 * size estimate is exact; {@link StringCodec#UTF8} estimates three bytes per character,
 * so every argument is first encoded into a temporary buffer of its own and then copied.
 * redeq sends a dozen arguments per job (the schedule script's eight per job, keys,
 * tokens): those buffers, and the allocation traces Netty's leak detector records for a
 * sample of them, were the largest source of garbage per job after the payload. Counting
 * the UTF-8 bytes first costs one pass over the text, which is usually ASCII.
 *
 * <p>
 * The bytes are the same as {@link StringCodec#UTF8}'s: both encode with
 * {@link ByteBufUtil#writeUtf8}, whose length {@link ByteBufUtil#utf8Bytes} gives exactly
 * (an unpaired surrogate included, written as {@code ?}).
 */
final class ExactUtf8Codec extends StringCodec {

	/** The one instance; it holds no state. */
	static final ExactUtf8Codec INSTANCE = new ExactUtf8Codec();

	private ExactUtf8Codec() {
		super(StandardCharsets.UTF_8);
	}

	@Override
	public int estimateSize(Object keyOrValue) {
		return (keyOrValue != null) ? ByteBufUtil.utf8Bytes((CharSequence) keyOrValue) : 0;
	}

	@Override
	public boolean isEstimateExact() {
		return true;
	}

}
