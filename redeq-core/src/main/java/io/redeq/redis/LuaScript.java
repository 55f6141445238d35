package io.redeq.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import io.lettuce.core.ScriptOutputType;

/**
 * One of redeq's Lua scripts: its name, source (with the shared prelude in front for job
 * scripts), SHA-1 digest for {@code EVALSHA}, and the Redis reply type it returns.
 *
 * @param name the file name without {@code .lua}
 * @param source the full source sent with {@code EVAL}
 * @param sha the SHA-1 digest of the source
 * @param output how Lettuce decodes the reply
 */
record LuaScript(String name, String source, String sha, ScriptOutputType output) {

	private static final String LOCATION = "/io/redeq/redis/lua/";

	/** A job script: runs on one bucket's keys, with the prelude's helpers in scope. */
	static LuaScript job(String name, ScriptOutputType output) {
		return of(name, read("prelude") + "\n" + read(name), output);
	}

	/** A script on keys outside the buckets, without the prelude. */
	static LuaScript plain(String name, ScriptOutputType output) {
		return of(name, read(name), output);
	}

	private static LuaScript of(String name, String source, ScriptOutputType output) {
		return new LuaScript(name, source, sha1(source), output);
	}

	private static String read(String name) {
		try (InputStream in = LuaScript.class.getResourceAsStream(LOCATION + name + ".lua")) {
			if (in == null) {
				throw new IllegalStateException("redeq script " + name + ".lua is missing from the classpath");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read redeq script " + name + ".lua", ex);
		}
	}

	private static String sha1(String source) {
		try {
			MessageDigest digest = MessageDigest.getInstance("SHA-1");
			return HexFormat.of().formatHex(digest.digest(source.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required by every JVM", ex);
		}
	}

	@Override
	public String toString() {
		return this.name + ".lua";
	}

}
