package io.redeq.internal;

import java.time.Duration;

/**
 * What happens to jobs inside the engine, reported to metrics. Every method has a no-op
 * default so that an engine without a meter registry pays nothing.
 */
public interface JobEvents {

	/** Records nothing: the events of an engine without a meter registry. */
	JobEvents NONE = new JobEvents() {
	};

	default void scheduled(String topic) {
	}

	default void cancelled(String topic) {
	}

	/**
	 * A claimed job was handed to a worker; {@code lateness} is due time → claim (Redis
	 * clock).
	 */
	default void started(String topic, Duration lateness) {
	}

	default void completed(String topic, Duration handlerDuration) {
	}

	default void retried(String topic, Duration handlerDuration) {
	}

	default void dead(String topic) {
	}

	/**
	 * One migrate call moved {@code migrated} due jobs and reclaimed {@code reclaimed}
	 * expired leases.
	 */
	default void migrated(int bucket, int migrated, int reclaimed) {
	}

}
