package io.redeq.internal.redis.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
public record LuaScript(String name, String source, String sha, ScriptOutputType output) {

	private static final String LOCATION = "/io/redeq/internal/redis/lua/";

	/**
	 * The helpers beyond the prelude, one file each under {@code lib/}, in an order where
	 * each may call only those before it.
	 */
	private static final List<String> LIBRARIES = List.of("settings", "attempts", "counts", "frozen", "layout", "state",
			"bury", "removal", "finishing", "undeclared", "requests", "recurring", "delivery", "claiming");

	/**
	 * Sets a call's keys, topics and counter changes (see prelude.lua) before a job
	 * script's body runs.
	 */
	static final String BEGIN_CALL = "begin_call(KEYS, ARGV[1])\n";

	private static final Pattern DEFINED_FUNCTION = Pattern.compile("^local function (\\w+)\\(", Pattern.MULTILINE);

	/**
	 * A job script: runs on one bucket's keys, with the prelude in front and the helpers
	 * of {@code lib/} it calls.
	 */
	static LuaScript job(String name, ScriptOutputType output) {
		String body = read(name);
		return of(name, read("prelude") + "\n" + librariesFor(body) + BEGIN_CALL + body, output);
	}

	/**
	 * The libraries a script calls, directly or through another library, in dependency
	 * order. Redis runs a script's whole text at every call, so a helper it never calls
	 * still costs it the time to define the function.
	 */
	static String librariesFor(String body) {
		List<String> included = new ArrayList<>();
		StringBuilder callers = new StringBuilder(body);
		for (int i = LIBRARIES.size() - 1; i >= 0; i--) {
			String library = read("lib/" + LIBRARIES.get(i));
			if (callsAny(callers, library)) {
				included.add(0, library);
				callers.append(library);
			}
		}
		return String.join("\n", included) + (included.isEmpty() ? "" : "\n");
	}

	private static boolean callsAny(CharSequence code, String library) {
		Matcher defined = DEFINED_FUNCTION.matcher(library);
		while (defined.find()) {
			if (Pattern.compile("(?<![\\w.])" + defined.group(1) + "\\(").matcher(code).find()) {
				return true;
			}
		}
		return false;
	}

	/** A script on keys outside the buckets, without the prelude. */
	static LuaScript plain(String name, ScriptOutputType output) {
		return of(name, read(name), output);
	}

	private static LuaScript of(String name, String source, ScriptOutputType output) {
		return new LuaScript(name, source, sha1(source), output);
	}

	static String read(String name) {
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

	static String sha1(String source) {
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
