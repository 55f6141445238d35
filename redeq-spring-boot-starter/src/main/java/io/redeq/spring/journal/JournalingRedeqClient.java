package io.redeq.spring.journal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import io.redeq.AsyncRedeqClient;
import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.PolledJob;
import io.redeq.Recurring;
import io.redeq.RedeqClient;
import io.redeq.schedule.AcceptedJob;
import io.redeq.schedule.CancelledJobs;
import io.redeq.schedule.JobScheduler;

/**
 * A {@link RedeqClient} that journals what Redis accepted: each cancel and reschedule
 * that took effect here, and (through {@link #accepted}, which the engine calls for every
 * job a schedule call sent) each job Redis stored, as Redis holds it. It sits under the
 * transaction-aware client, so a job sent after its transaction committed is journaled as
 * sent. The journal is written later by the {@link JournalWriter}: the caller waits for
 * Redis only, as without the journal.
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

	/**
	 * Polls on the target; the journal learns what became of the polled job from the
	 * engine's lifecycle events, as for a listener's job.
	 */
	@Override
	public Optional<PolledJob> poll(String topic, Duration maxWait) {
		return this.target.poll(topic, maxWait);
	}

	@Override
	public String schedule(String topic, @Nullable Object payload, Duration delay) {
		return this.target.schedule(topic, payload, delay);
	}

	@Override
	public String scheduleAt(String topic, @Nullable Object payload, Instant dueAt) {
		return this.target.scheduleAt(topic, payload, dueAt);
	}

	@Override
	public String schedule(Job job) {
		return this.target.schedule(job);
	}

	@Override
	public List<String> scheduleAll(Collection<Job> jobs) {
		return this.target.scheduleAll(jobs);
	}

	@Override
	public boolean cancel(String topic, String id) {
		boolean cancelled = this.target.cancel(topic, id);
		if (cancelled) {
			cancelled(topic, id);
		}
		return cancelled;
	}

	/**
	 * Journals each job cancelled. The engine's client tells which ones, also when a
	 * bucket's script failed (those the others cancelled are journaled before the failure
	 * is thrown); any other target is asked one id at a time, and cancels the jobs found
	 * waiting.
	 */
	@Override
	public long cancelAll(String topic, Collection<String> ids) {
		if (this.target instanceof JobScheduler engine) {
			CancelledJobs cancelled = engine.cancelAllReporting(topic, ids);
			cancelled.ids().forEach((id) -> cancelled(topic, id));
			return cancelled.countOrThrow();
		}
		Objects.requireNonNull(ids, () -> "ids to cancel in topic '" + topic + "' must not be null");
		long count = 0;
		for (String id : new LinkedHashSet<>(ids)) {
			boolean waiting = find(topic, id).map(JobInfo::state)
				.filter((state) -> state == JobState.DELAYED || state == JobState.READY)
				.isPresent();
			count += (waiting && cancel(topic, id)) ? 1 : 0;
		}
		return count;
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

	/**
	 * Journals a job the engine sent, as Redis now holds it: called by the engine (see
	 * {@link io.redeq.schedule.JournalHooks#onAccepted}) when Redis answered, on the
	 * thread that read the answer. A job Redis kept ({@link io.redeq.Duplicate#KEEP}
	 * found one under its id) is not journaled: the row of the job Redis holds stays as
	 * it is, and an outbox row of this call stays unsent until the relay sends it, which
	 * Redis then keeps again and the relay marks sent.
	 * @param writer the journal's writer
	 * @param clock the clock of journal times
	 * @param job what the engine sent
	 */
	static void accepted(JournalWriter writer, Clock clock, AcceptedJob job) {
		if (!job.kept()) {
			writer.offer(new JournalEvent.Scheduled(JournalRow.of(job), clock.millis()));
		}
	}

	void rescheduled(String topic, String id, long dueAt, long at) {
		this.writer.offer(new JournalEvent.Changed(topic, id, JournalState.SCHEDULED, null, dueAt, null, at));
	}

}
