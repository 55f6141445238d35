package io.redeq;

import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Redis's slow log set to keep every command, so a test can tell apart the functions of
 * redeq's library, which INFO commandstats counts together as {@code fcall}. Puts the
 * server's settings back on close.
 */
final class SlowLog implements AutoCloseable {

	private static final int KEPT = 100_000;

	private final StatefulRedisConnection<String, String> connection;

	private final String slowerThan;

	private final String maxLength;

	private SlowLog(RedisClient client) {
		this.connection = client.connect();
		this.slowerThan = this.connection.sync().configGet("slowlog-log-slower-than").get("slowlog-log-slower-than");
		this.maxLength = this.connection.sync().configGet("slowlog-max-len").get("slowlog-max-len");
		this.connection.sync().configSet("slowlog-max-len", Integer.toString(KEPT));
		this.connection.sync().configSet("slowlog-log-slower-than", "0");
		this.connection.sync().slowlogReset();
	}

	static SlowLog everyCommand(RedisClient client) {
		return new SlowLog(client);
	}

	/**
	 * {@code FCALL}s of redeq's functions whose name ends with {@code suffix} (such as
	 * {@code "_complete"}), logged since this was opened.
	 */
	long functionCalls(String suffix) {
		long calls = 0;
		for (Object entry : this.connection.sync().slowlogGet(KEPT)) {
			List<?> fields = (List<?>) entry;
			List<?> command = (List<?>) fields.get(3);
			if (command.size() > 1 && "FCALL".equalsIgnoreCase(String.valueOf(command.get(0)))
					&& String.valueOf(command.get(1)).endsWith(suffix)) {
				calls++;
			}
		}
		return calls;
	}

	@Override
	public void close() {
		this.connection.sync().configSet("slowlog-log-slower-than", this.slowerThan);
		this.connection.sync().configSet("slowlog-max-len", this.maxLength);
		this.connection.close();
	}

}
