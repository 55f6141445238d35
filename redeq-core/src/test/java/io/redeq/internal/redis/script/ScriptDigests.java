package io.redeq.internal.redis.script;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * The digest redeq sends with {@code EVALSHA} for one of its scripts, for tests that pick
 * a script's commands out of the traffic (see {@code FaultProxy}).
 */
public final class ScriptDigests {

	private ScriptDigests() {
	}

	/**
	 * Loads the script into the server's cache and returns its digest: from then on redeq
	 * runs it by digest alone, never by source after a {@code NOSCRIPT}.
	 */
	public static String load(RedisClient direct, String name) {
		LuaScript script = switch (name) {
			case "claim" -> Scripts.CLAIM;
			case "cancel" -> Scripts.CANCEL;
			default -> throw new IllegalArgumentException("No digest helper for script " + name);
		};
		try (StatefulRedisConnection<String, String> connection = direct.connect()) {
			connection.sync().scriptLoad(script.source());
		}
		return script.sha();
	}

}
