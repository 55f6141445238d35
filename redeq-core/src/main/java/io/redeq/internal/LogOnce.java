package io.redeq.internal;

import org.slf4j.Logger;

/**
 * Logs a background loop's failure once when it starts failing and once when it recovers,
 * not once per retry tick, so a Redis outage leaves two lines instead of thousands.
 */
public final class LogOnce {

	private final Logger logger;

	private volatile boolean failing;

	public LogOnce(Logger logger) {
		this.logger = logger;
	}

	public void failed(String message, Throwable ex) {
		if (!this.failing) {
			this.failing = true;
			this.logger.warn("{}: {}", message, ex.toString());
			this.logger.debug("Cause", ex);
		}
	}

	public void recovered(String message, Object arg) {
		if (this.failing) {
			this.failing = false;
			this.logger.info(message, arg);
		}
	}

}
