package io.redeq.internal.redis;

import io.redeq.RedeqException;

/**
 * A script refused to run on a bucket because the prefix's bucket count is changing or
 * has changed: the bucket is frozen while its jobs move, or it was marked with another
 * count than the one the caller runs on. Nothing was written. The caller waits for its
 * engine to follow the count recorded in Redis and tries again on the new layout.
 */
public class LayoutChangedException extends RedeqException {

	private static final long serialVersionUID = 1L;

	public LayoutChangedException(String message) {
		super(message);
	}

	public LayoutChangedException(String message, Throwable cause) {
		super(message, cause);
	}

}
