package io.redeq.internal.codec;

import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;

/**
 * Writes payloads as JSON text and reads them back into the type a handler declares.
 */
public interface PayloadCodec {

	String write(@Nullable Object payload);

	@Nullable Object read(String json, Type type);

}
