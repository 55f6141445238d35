package io.redeq.internal.consumer;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.redeq.Delivery;
import io.redeq.JobLifecycleListener;

/**
 * Internal: a {@link JobLifecycleListener} that is also told which version of its job
 * each delivery is: the version the job was scheduled as (see
 * {@link io.redeq.internal.schedule.JournalHooks#versions}), or {@code null} for a job
 * scheduled without one. The starter's journal uses it so that an outcome finishes only
 * the journal row of the version that ran. No part of redeq's contract; it may change.
 */
public interface VersionedLifecycleListener extends JobLifecycleListener {

	void onStart(Delivery delivery, @Nullable String version);

	void onSuccess(Delivery delivery, Duration handlerDuration, @Nullable String version);

	void onRetry(Delivery delivery, Throwable error, Instant nextAttemptAt, @Nullable String version);

	void onDead(Delivery delivery, String reason, @Nullable String version);

	@Override
	default void onStart(Delivery delivery) {
		onStart(delivery, null);
	}

	@Override
	default void onSuccess(Delivery delivery, Duration handlerDuration) {
		onSuccess(delivery, handlerDuration, null);
	}

	@Override
	default void onRetry(Delivery delivery, Throwable error, Instant nextAttemptAt) {
		onRetry(delivery, error, nextAttemptAt, null);
	}

	@Override
	default void onDead(Delivery delivery, String reason) {
		onDead(delivery, reason, null);
	}

}
