package io.redeq.spring.internal.journal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import io.redeq.AsyncRedeqClient;
import io.redeq.Job;
import io.redeq.JobInfo;

/**
 * An {@link AsyncRedeqClient} that journals the cancels and reschedules Redis accepted
 * once their future completed, so the caller never waits for the database (scheduled jobs
 * are journaled as the engine reports them, see {@link JournalingRedeqClient#accepted}).
 * The journal's writer takes events without blocking. {@link JournalingRedeqClient} is
 * its blocking view.
 */
final class JournalingAsyncRedeqClient implements AsyncRedeqClient {

	private final AsyncRedeqClient target;

	private final JournalWriter writer;

	private final Clock clock;

	JournalingAsyncRedeqClient(AsyncRedeqClient target, JournalWriter writer, Clock clock) {
		this.target = target;
		this.writer = writer;
		this.clock = clock;
	}

	@Override
	public CompletableFuture<String> schedule(String topic, @Nullable Object payload, Duration delay) {
		return this.target.schedule(topic, payload, delay);
	}

	@Override
	public CompletableFuture<String> scheduleAt(String topic, @Nullable Object payload, Instant dueAt) {
		return this.target.scheduleAt(topic, payload, dueAt);
	}

	@Override
	public CompletableFuture<String> schedule(Job job) {
		return this.target.schedule(job);
	}

	@Override
	public CompletableFuture<List<String>> scheduleAll(Collection<Job> jobs) {
		return this.target.scheduleAll(jobs);
	}

	@Override
	public CompletableFuture<Boolean> cancel(String topic, String id) {
		return this.target.cancel(topic, id).thenApply((cancelled) -> {
			if (cancelled) {
				cancelled(topic, id);
			}
			return cancelled;
		});
	}

	@Override
	public CompletableFuture<Boolean> reschedule(String topic, String id, Duration delay) {
		long now = this.clock.millis();
		return this.target.reschedule(topic, id, delay).thenApply((rescheduled) -> {
			if (rescheduled) {
				rescheduled(topic, id, now + delay.toMillis(), now);
			}
			return rescheduled;
		});
	}

	@Override
	public CompletableFuture<Boolean> reschedule(String topic, String id, Instant dueAt) {
		return this.target.reschedule(topic, id, dueAt).thenApply((rescheduled) -> {
			if (rescheduled) {
				rescheduled(topic, id, dueAt.toEpochMilli(), this.clock.millis());
			}
			return rescheduled;
		});
	}

	@Override
	public CompletableFuture<Optional<JobInfo>> find(String topic, String id) {
		return this.target.find(topic, id);
	}

	void cancelled(String topic, String id) {
		this.writer
			.offer(new JournalEvent.Changed(topic, id, JournalState.CANCELLED, null, null, null, this.clock.millis()));
	}

	private void rescheduled(String topic, String id, long dueAt, long at) {
		this.writer.offer(new JournalEvent.Changed(topic, id, JournalState.SCHEDULED, null, dueAt, null, at));
	}

}
