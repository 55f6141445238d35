package io.redeq.spring.internal.journal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import io.redeq.Delivery;
import io.redeq.internal.consumer.VersionedLifecycleListener;

/**
 * Journals the start of each attempt and what became of it, for the version of the job
 * that ran. Called on the worker thread, before the handler and after Redis stored the
 * outcome; it only queues an event, so the handler's path never waits for the database.
 */
final class JournalLifecycleListener implements VersionedLifecycleListener {

	private final JournalWriter writer;

	private final Clock clock;

	JournalLifecycleListener(JournalWriter writer, Clock clock) {
		this.writer = writer;
		this.clock = clock;
	}

	@Override
	public void onStart(Delivery delivery, @Nullable String version) {
		this.writer.offer(new JournalEvent.Changed(delivery.topic(), delivery.id(), JournalState.RUNNING,
				delivery.attempt(), null, null, this.clock.millis(), version));
	}

	@Override
	public void onSuccess(Delivery delivery, Duration handlerDuration, @Nullable String version) {
		this.writer.offer(new JournalEvent.Changed(delivery.topic(), delivery.id(), JournalState.COMPLETED,
				delivery.attempt(), null, null, this.clock.millis(), version));
	}

	@Override
	public void onRetry(Delivery delivery, Throwable error, Instant nextAttemptAt, @Nullable String version) {
		this.writer.offer(new JournalEvent.Changed(delivery.topic(), delivery.id(), JournalState.RETRYING,
				delivery.attempt(), nextAttemptAt.toEpochMilli(), String.valueOf(error), this.clock.millis(), version));
	}

	@Override
	public void onDead(Delivery delivery, String reason, @Nullable String version) {
		this.writer.offer(new JournalEvent.Changed(delivery.topic(), delivery.id(), JournalState.DEAD,
				delivery.attempt(), null, reason, this.clock.millis(), version));
	}

}
