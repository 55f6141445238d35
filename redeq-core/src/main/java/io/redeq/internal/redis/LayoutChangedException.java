package io.redeq.internal.redis;

import io.redeq.RedeqException;

/**
 * Redis refused a script because the bucket count of the prefix is changing or changed:
 * the bucket is frozen while a change moves its jobs, or it records a count other than
 * the one the caller runs on. Nothing was written. The caller waits for its engine to
 * follow the layout recorded in the prefix's meta hash and retries; the message, Redis's
 * own, names the bucket and the count it moves to.
 */
public class LayoutChangedException extends RedeqException {

	/** What the error replies of these refusals start with, after Redis's {@code ERR}. */
	public static final String REPLY_PREFIX = "redeq-layout:";

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
	public static boolean matches(String message) {
		if (message == null) {
			return false;
		}
		String text = message.startsWith("ERR ") ? message.substring(4) : message;
		return text.startsWith(REPLY_PREFIX);
	}

}
