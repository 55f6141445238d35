package io.redeq.spring.journal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import io.redeq.AsyncRedeqClient;
import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.Recurring;
import io.redeq.RedeqClient;

/**
 * A {@link RedeqClient} that journals what Redis accepted: each job it schedules, and
 * each cancel and reschedule that took effect. It sits under the transaction-aware
 * client, so a job sent after its transaction committed is journaled here as sent. The
 * journal is written later by the {@link JournalWriter}: the caller waits for Redis only,
 * as without the journal.
 */
final class JournalingRedeqClient implements RedeqClient {

	private final RedeqClient target;

	private final JournalWriter writer;

	private final Clock clock;

	private final JournalingAsyncRedeqClient async;

	JournalingRedeqClient(RedeqClient target, JournalWriter writer, Clock clock) {
		this.target = target;
		this.writer = writer;
		this.clock = clock;
		this.async = new JournalingAsyncRedeqClient(target.async(), this, clock);
	}

	@Override
	public AsyncRedeqClient async() {
		return this.async;
	}

	/**
	 * Recurring jobs are definitions, not jobs, and are not journaled: neither the
	 * definition nor its occurrences get a row (an occurrence's start and outcome find no
	 * row to update). After Redis lost its data, the recovery declares the
	 * {@code redeq.recurring.*} jobs again; one declared here must be declared again by
	 * the application (see docs/journal.md).
	 */
	@Override
	public String scheduleRecurring(Recurring recurring) {
		return this.target.scheduleRecurring(recurring);
	}

	@Override
	public boolean cancelRecurring(String topic, String id) {
		return this.target.cancelRecurring(topic, id);
	}

	@Override
	public String schedule(String topic, @Nullable Object payload, Duration delay) {
		long sentAt = this.clock.millis();
		String id = this.target.schedule(topic, payload, delay);
		scheduled(Job.builder(topic).id(id).payload(payload).delay(delay).build(), sentAt);
		return id;
	}

	@Override
	public String scheduleAt(String topic, @Nullable Object payload, Instant dueAt) {
		long sentAt = this.clock.millis();
		String id = this.target.scheduleAt(topic, payload, dueAt);
		scheduled(Job.builder(topic).id(id).payload(payload).dueAt(dueAt).build(), sentAt);
		return id;
	}

	@Override
	public String schedule(Job job) {
		long sentAt = this.clock.millis();
		String id = this.target.schedule(job);
		scheduled(withId(job, id), sentAt);
		return id;
	}

	/**
	 * Journals the batch once Redis accepted it. When some job failed, the others went
	 * through: those Redis now holds are journaled before the failure is thrown (a job
	 * that already ran to its end is not found, and stays unjournaled).
	 */
	@Override
	public List<String> scheduleAll(Collection<Job> jobs) {
		long sentAt = this.clock.millis();
		List<Job> copy = List.copyOf(jobs);
		List<String> ids;
		try {
			ids = this.target.scheduleAll(copy);
		}
		catch (RuntimeException ex) {
			for (Job job : copy) {
				if (job.id() != null && this.target.find(job.topic(), job.id()).isPresent()) {
					scheduled(job, sentAt);
				}
			}
			throw ex;
		}
		for (int i = 0; i < copy.size(); i++) {
			scheduled(withId(copy.get(i), ids.get(i)), sentAt);
		}
		return ids;
	}

	@Override
	public boolean cancel(String topic, String id) {
		boolean cancelled = this.target.cancel(topic, id);
		if (cancelled) {
			cancelled(topic, id);
		}
		return cancelled;
	}

	@Override
	public boolean reschedule(String topic, String id, Duration delay) {
		long now = this.clock.millis();
		boolean rescheduled = this.target.reschedule(topic, id, delay);
		if (rescheduled) {
			rescheduled(topic, id, now + delay.toMillis(), now);
		}
		return rescheduled;
	}

	@Override
	public boolean reschedule(String topic, String id, Instant dueAt) {
		boolean rescheduled = this.target.reschedule(topic, id, dueAt);
		if (rescheduled) {
			rescheduled(topic, id, dueAt.toEpochMilli(), this.clock.millis());
		}
		return rescheduled;
	}

	@Override
	public Optional<JobInfo> find(String topic, String id) {
		return this.target.find(topic, id);
	}

	void cancelled(String topic, String id) {
		this.writer
			.offer(new JournalEvent.Changed(topic, id, JournalState.CANCELLED, null, null, null, this.clock.millis()));
	}

	void scheduled(Job job, long sentAt) {
		this.writer.offer(new JournalEvent.Scheduled(job, JdbcOutbox.dueAt(job, sentAt), sentAt));
	}

	void rescheduled(String topic, String id, long dueAt, long at) {
		this.writer.offer(new JournalEvent.Changed(topic, id, JournalState.SCHEDULED, null, dueAt, null, at));
	}

	static Job withId(Job job, String id) {
		if (id.equals(job.id())) {
			return job;
		}
		Job.Builder builder = Job.builder(job.topic()).id(id).payload(job.payload()).onDuplicate(job.onDuplicate());
		// The job's own settings travel with it.
		builder.priority(job.priority());
		if (job.timeout() != null) {
			builder.timeout(job.timeout());
		}
		if (job.maxAttempts() != null) {
			builder.maxAttempts(job.maxAttempts());
		}
		if (job.dueAt() != null) {
			builder.dueAt(job.dueAt());
		}
		else if (job.delay() != null) {
			builder.delay(job.delay());
		}
		return builder.build();
	}

}
