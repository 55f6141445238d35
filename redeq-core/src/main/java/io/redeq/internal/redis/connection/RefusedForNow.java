package io.redeq.internal.redis.connection;

import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The error replies with which Redis refuses a command because of its own state, not
 * because of the command: out of memory under {@code maxmemory} with {@code noeviction},
 * loading its data after a restart, a replica after a failover, a cluster or master down,
 * a slot in migration, a script running too long, too few replicas for
 * {@code min-replicas-to-write}, a failed snapshot under
 * {@code stop-writes-on-bgsave-error}. Redis refuses these before a script writes
 * anything (a script that has written runs to its end), and the same command succeeds
 * once Redis recovers: redeq reports them as {@link io.redeq.RedeqUnavailableException},
 * so that a caller retries rather than gives up on the job.
 */
public final class RefusedForNow {

	private static final Set<String> CODES = Set.of("OOM", "LOADING", "READONLY", "MASTERDOWN", "CLUSTERDOWN",
			"TRYAGAIN", "BUSY", "NOREPLICAS", "MISCONF", "UNBLOCKED");

	/**
	 * Redis 6.2 reports the error of a command a script called inside its own:
	 * {@code ERR Error running script (call to f_...): @user_script:12: -OOM command not
	 * allowed ...}.
	 */
	private static final String IN_SCRIPT = "Error running script";

	private RefusedForNow() {
	}

	/**
	 * Whether an error reply is one of these.
	 * @param message the error reply, its code first
	 * @return true for a refusal that passes when Redis recovers
	 */
	public static boolean matches(@Nullable String message) {
		if (message == null) {
			return false;
		}
		if (CODES.contains(code(message, 0))) {
			return true;
		}
		if (message.startsWith("ERR " + IN_SCRIPT)) {
			int inner = message.indexOf(": -");
			return inner >= 0 && CODES.contains(code(message, inner + 3));
		}
		return false;
	}

	private static String code(String message, int from) {
		int end = from;
		while (end < message.length() && Character.isUpperCase(message.charAt(end))) {
			end++;
		}
		return message.substring(from, end);
	}

}
