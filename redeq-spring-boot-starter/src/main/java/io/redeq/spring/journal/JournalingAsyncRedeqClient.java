package io.redeq.spring.journal;

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
 * The asynchronous view of {@link JournalingRedeqClient}: journals what Redis accepted
 * once its future completed, so the caller never waits for the database. The journal's
 * writer takes events without blocking.
 */
final class JournalingAsyncRedeqClient implements AsyncRedeqClient {

	private final AsyncRedeqClient target;

	private final JournalingRedeqClient journal;

	private final Clock clock;

	JournalingAsyncRedeqClient(AsyncRedeqClient target, JournalingRedeqClient journal, Clock clock) {
		this.target = target;
		this.journal = journal;
		this.clock = clock;
	}

	@Override
	public CompletableFuture<String> schedule(String topic, @Nullable Object payload, Duration delay) {
		long sentAt = this.clock.millis();
		return this.target.schedule(topic, payload, delay)
			.thenApply((id) -> scheduled(Job.builder(topic).id(id).payload(payload).delay(delay).build(), sentAt));
	}

	@Override
	public CompletableFuture<String> scheduleAt(String topic, @Nullable Object payload, Instant dueAt) {
		long sentAt = this.clock.millis();
		return this.target.scheduleAt(topic, payload, dueAt)
			.thenApply((id) -> scheduled(Job.builder(topic).id(id).payload(payload).dueAt(dueAt).build(), sentAt));
	}

	@Override
	public CompletableFuture<String> schedule(Job job) {
		long sentAt = this.clock.millis();
		return this.target.schedule(job).thenApply((id) -> scheduled(JournalingRedeqClient.withId(job, id), sentAt));
	}

	/**
	 * Journals the batch once Redis accepted it. A batch that failed is journaled as the
	 * synchronous client does it: each job Redis now holds, found after the failure.
	 */
	@Override
	public CompletableFuture<List<String>> scheduleAll(Collection<Job> jobs) {
		long sentAt = this.clock.millis();
		List<Job> copy = List.copyOf(jobs);
		return this.target.scheduleAll(copy).whenComplete((ids, ex) -> {
			if (ex == null) {
				for (int i = 0; i < copy.size(); i++) {
					scheduled(JournalingRedeqClient.withId(copy.get(i), ids.get(i)), sentAt);
				}
				return;
			}
			for (Job job : copy) {
				if (job.id() != null) {
					this.target.find(job.topic(), job.id()).thenAccept((found) -> {
						if (found.isPresent()) {
							scheduled(job, sentAt);
						}
					});
				}
			}
		});
	}

	@Override
	public CompletableFuture<Boolean> cancel(String topic, String id) {
		return this.target.cancel(topic, id).thenApply((cancelled) -> {
			if (cancelled) {
				this.journal.cancelled(topic, id);
			}
			return cancelled;
		});
	}

	@Override
	public CompletableFuture<Boolean> reschedule(String topic, String id, Duration delay) {
		long now = this.clock.millis();
		return this.target.reschedule(topic, id, delay).thenApply((rescheduled) -> {
			if (rescheduled) {
				this.journal.rescheduled(topic, id, now + delay.toMillis(), now);
			}
			return rescheduled;
		});
	}

	@Override
	public CompletableFuture<Boolean> reschedule(String topic, String id, Instant dueAt) {
		return this.target.reschedule(topic, id, dueAt).thenApply((rescheduled) -> {
			if (rescheduled) {
				this.journal.rescheduled(topic, id, dueAt.toEpochMilli(), this.clock.millis());
			}
			return rescheduled;
		});
	}

	@Override
	public CompletableFuture<Optional<JobInfo>> find(String topic, String id) {
		return this.target.find(topic, id);
	}

	private String scheduled(Job job, long sentAt) {
		this.journal.scheduled(job, sentAt);
		return job.id();
	}

}
