package io.redeq.test;

import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Counts the calls Redis has served, from {@code INFO commandstats}, so a test can bound
 * how many commands something issues (an idle loop, a metrics scrape). Redis 7 counts
 * commands that scripts call too.
 */
public final class CommandStats {

	private static final Pattern CALLS = Pattern.compile(":calls=(\\d+)");

	private CommandStats() {
	}

	/** Calls of the commands whose name (as in {@code cmdstat_<name>}) matches. */
	public static long calls(RedisClient client, Predicate<String> command) {
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			long calls = 0;
			for (String line : connection.sync().info("commandstats").split("\r?\n")) {
				if (line.startsWith("cmdstat_")) {
					String name = line.substring("cmdstat_".length(), line.indexOf(':'));
					if (command.test(name)) {
						calls += callsOf(line);
					}
				}
			}
			return calls;
		}
	}

	/**
	 * The {@code calls} field of a {@code cmdstat_<name>:calls=N,usec=...} line: the
	 * first field, not {@code rejected_calls} or {@code failed_calls} further on.
	 */
	static long callsOf(String line) {
		Matcher matcher = CALLS.matcher(line);
		if (!matcher.find()) {
			throw new IllegalStateException("No calls field in INFO commandstats line: " + line);
		}
		return Long.parseLong(matcher.group(1));
	}

	/**
	 * Script calls ({@code EVAL}, {@code EVALSHA} and {@code FCALL} of redeq's function
	 * library): every redeq read and write is one.
	 */
	public static long scriptCalls(RedisClient client) {
		return calls(client, (name) -> name.startsWith("eval") || name.equals("fcall"));
	}

}
