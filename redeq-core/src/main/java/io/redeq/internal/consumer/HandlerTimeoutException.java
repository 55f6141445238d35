package io.redeq.internal.consumer;

import java.time.Duration;

/**
 * Recorded as the failure of an attempt whose handler ran longer than its timeout.
 */
final class HandlerTimeoutException extends Exception {

	HandlerTimeoutException(Duration timeout) {
		super("handler did not finish within its timeout of " + timeout + " and was interrupted", null, false, false);
	}

}
