package io.redeq.test;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

/**
 * Redis ACL users for the tests that check what redeq needs of Redis (the documented
 * rules, and rules that leave something out).
 */
public final class AclUsers {

	private AclUsers() {
	}

	/**
	 * Runs {@code ACL <rules>} as the given client's user, e.g.
	 * {@code SETUSER app reset on >secret ~* +@all -zadd}.
	 * @param admin a client allowed to change users
	 * @param rules the ACL subcommand and its arguments, separated by single spaces
	 */
	public static void acl(RedisClient admin, String rules) {
		try (StatefulRedisConnection<String, String> connection = admin.connect()) {
			CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
			for (String rule : rules.split(" ")) {
				args.add(rule);
			}
			String reply = connection.sync().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args);
			if (!"OK".equals(reply)) {
				throw new IllegalStateException("ACL " + rules + " answered " + reply);
			}
		}
	}

	/** Where to log in to {@code server} as {@code user}. */
	public static RedisURI uriAs(RedisServer server, String user, String password) {
		return RedisURI.Builder.redis(server.host(), server.port()).withAuthentication(user, password).build();
	}

}
