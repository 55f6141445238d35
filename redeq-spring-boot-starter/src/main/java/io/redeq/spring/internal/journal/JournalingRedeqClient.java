package io.redeq.spring.internal.journal;

import java.time.Clock;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Objects;

import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.RedeqClient;
import io.redeq.internal.schedule.AcceptedJob;
import io.redeq.internal.schedule.CancelledJobs;
import io.redeq.internal.schedule.JobScheduler;
import io.redeq.spring.internal.BlockingRedeqClient;

/**
 * A {@link RedeqClient} that journals what Redis accepted: each cancel and reschedule
 * that took effect here, and (through {@link #accepted}, which the engine calls for every
 * job a schedule call sent) each job Redis stored, as Redis holds it. It sits under the
 * transaction-aware client, so a job sent after its transaction committed is journaled as
 * sent. The journal is written later by the {@link JournalWriter}: the caller waits for
 * Redis only, as without the journal.
 *
 * <p>
 * The journaling is written once, on the asynchronous client
 * ({@link JournalingAsyncRedeqClient}); a blocking call awaits it. Recurring jobs are
 * definitions, not jobs, and are not journaled: neither the definition nor its
 * occurrences get a row (an occurrence's start and outcome find no row to update). After
 * Redis lost its data, the recovery declares the {@code redeq.recurring.*} jobs again;
 * one declared here must be declared again by the application (see docs/journal.md). A
 * polled job goes to the target; the journal learns what became of it from the engine's
 * lifecycle events, as for a listener's job.
 */
final class JournalingRedeqClient extends BlockingRedeqClient {

	private final JournalingAsyncRedeqClient journaling;

	JournalingRedeqClient(RedeqClient target, JournalWriter writer, Clock clock) {
		this(target, new JournalingAsyncRedeqClient(target.async(), writer, clock));
	}

	private JournalingRedeqClient(RedeqClient target, JournalingAsyncRedeqClient journaling) {
		super(journaling, target);
		this.journaling = journaling;
	}

	/**
	 * Journals each job cancelled. The engine's client tells which ones, also when a
	 * bucket's script failed (those the others cancelled are journaled before the failure
	 * is thrown); any other target is asked one id at a time, and cancels the jobs found
	 * waiting.
	 */
	@Override
	public long cancelAll(String topic, Collection<String> ids) {
		if (target() instanceof JobScheduler engine) {
			CancelledJobs cancelled = engine.cancelAllReporting(topic, ids);
			cancelled.ids().forEach((id) -> this.journaling.cancelled(topic, id));
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

	/**
	 * Journals a job the engine sent, as Redis now holds it: called by the engine (see
	 * {@link io.redeq.internal.schedule.JournalHooks#onAccepted}) when Redis answered, on
	 * the thread that read the answer. A job Redis kept ({@link io.redeq.Duplicate#KEEP}
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

}
