package io.redeq.internal.redis;

import org.jspecify.annotations.Nullable;

import io.redeq.RedeqException;
import io.redeq.internal.redis.script.ScriptRunner;

/**
 * Redis refused a script because the bucket count of the prefix is changing or changed:
 * the bucket is frozen while a change moves its jobs, or it records a count other than
 * the one the caller runs on. Nothing was written. The caller waits for its engine to
 * follow the layout recorded in the prefix's meta hash and retries; the message, Redis's
 * own, names the bucket and the count it moves to.
 */
public class LayoutChangedException extends RedeqException {

	/**
	 * A change that did not end while a caller waited for it.
	 * @param message what happened and what to do
	 */
	public LayoutChangedException(String message) {
		super(message);
	}

	/**
	 * A refusal with its message.
	 * @param message the refusal's text
	 * @param cause the failure Lettuce reported
	 */
	public LayoutChangedException(String message, Throwable cause) {
		super(message, cause);
	}

	/**
	 * Whether an error reply is one of these refusals.
	 * @param message the error reply, with or without its {@code ERR} code
	 * @return true for a refusal on a changing or changed layout
	 */
	public static boolean matches(@Nullable String message) {
		return ScriptRunner.isLayoutRefusal(message);
	}

	/**
	 * Makes the script machinery report layout refusals with this exception; the key
	 * space does it when it is first used, before any script on a bucket runs.
	 */
	public static void reportedByScripts() {
		ScriptRunner.reportLayoutRefusalsWith(LayoutChangedException::new);
	}

}
