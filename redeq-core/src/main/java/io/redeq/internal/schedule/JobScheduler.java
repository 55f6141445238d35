package io.redeq.internal.schedule;

import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.redeq.Job;
import io.redeq.PolledJob;
import io.redeq.Recurring;
import io.redeq.RedeqClient;
import io.redeq.RedeqException;
import io.redeq.internal.AwaitingRedeqClient;
import io.redeq.internal.LayoutFollower;
import io.redeq.internal.recurring.RecurringJobs;
import io.redeq.internal.redis.script.ScriptRunner;

/**
 * {@link RedeqClient} as the {@link AsyncJobScheduler asynchronous client} plus a bounded
 * wait: one code path for both. Validation errors come from the caller's thread, Redis's
 * answers as the exceptions the asynchronous client completes with.
 */
public final class JobScheduler extends AwaitingRedeqClient {

	private final AsyncJobScheduler async;

	private final ScriptRunner scripts;

	/**
	 * Longer than any future of the asynchronous client may take (each ends itself at its
	 * own timeout), so the wait only guards against a future nothing completes.
	 */
	private final Duration bound;

	/** The recurring jobs of the bucket layout the engine runs on. */
	private final Supplier<RecurringJobs> recurring;

	/** Where a recurring call refused by a changed layout waits; null: nowhere. */
	private volatile @Nullable LayoutFollower follower;

	private final BiFunction<String, Duration, Optional<PolledJob>> polls;

	/**
	 * A client whose {@link #poll(String, Duration)} runs on the engine's pull consumers.
	 * @param async the asynchronous client
	 * @param scripts the script runner
	 * @param recurring the recurring jobs
	 * @param polls what polls a topic (validating its arguments)
	 */
	public JobScheduler(AsyncJobScheduler async, ScriptRunner scripts, RecurringJobs recurring,
			BiFunction<String, Duration, Optional<PolledJob>> polls) {
		this(async, scripts, () -> recurring, polls);
	}

	/**
	 * A client whose recurring jobs are those of the bucket layout its engine runs on at
	 * each call.
	 * @param async the asynchronous scheduler it waits on
	 * @param scripts the script runner
	 * @param recurring the current recurring jobs
	 * @param polls how a topic is polled
	 */
	public JobScheduler(AsyncJobScheduler async, ScriptRunner scripts, Supplier<RecurringJobs> recurring,
			BiFunction<String, Duration, Optional<PolledJob>> polls) {
		super(async);
		this.async = async;
		this.scripts = scripts;
		this.recurring = recurring;
		this.polls = polls;
		this.bound = async.longestWait().multipliedBy(2).plusSeconds(1);
	}

	/**
	 * Schedules a job restored from elsewhere with the attempts it already used (see
	 * {@link JobRestorer}).
	 * @param job the job
	 * @param attemptsUsed attempts used before, 0 for none
	 * @return the job's id
	 */
	public String restore(Job job, int attemptsUsed) {
		return await(this.async.restore(job, attemptsUsed), "restore");
	}

	/**
	 * Schedules a job restored from elsewhere with the attempts it already used and its
	 * stored trace context (see {@link JobRestorer}).
	 * @param job the job
	 * @param attemptsUsed attempts used before, 0 for none
	 * @param traceContext the stored trace context, or {@code null}
	 * @return the job's id
	 */
	public String restore(Job job, int attemptsUsed, @Nullable String traceContext) {
		return await(this.async.restore(job, attemptsUsed, traceContext), "restore");
	}

	/**
	 * The hooks the starter's journal uses; internal.
	 * @return the hooks
	 */
	public JournalHooks journalHooks() {
		return this.async.journalHooks();
	}

	@Override
	public long cancelAll(String topic, Collection<String> ids) {
		return cancelAllReporting(topic, ids).countOrThrow();
	}

	/**
	 * Cancels as {@link #cancelAll} does and tells which jobs it cancelled, also when a
	 * bucket's script failed; for the starter's journal, which records each.
	 * @param topic the topic
	 * @param ids the ids
	 * @return the ids cancelled, and the first failure if any
	 */
	public CancelledJobs cancelAllReporting(String topic, Collection<String> ids) {
		return await(this.async.cancelAll(topic, ids), "cancel jobs");
	}

	@Override
	public String scheduleRecurring(Recurring recurring) {
		Objects.requireNonNull(recurring, "recurring must not be null");
		String id = (recurring.id() != null) ? recurring.id() : "(new recurring job)";
		String payload = this.async.writePayload(recurring.topic(), id, recurring.payload());
		return followingLayout(() -> this.recurring.get().declare(recurring, payload));
	}

	@Override
	public boolean cancelRecurring(String topic, String id) {
		return followingLayout(() -> this.recurring.get().cancel(topic, id));
	}

	/**
	 * Where calls refused by a changed bucket layout wait for the engine to follow it;
	 * the asynchronous scheduler is told too.
	 * @param follower the engine's follower
	 */
	public void followLayoutWith(LayoutFollower follower) {
		this.follower = follower;
		this.async.followLayoutWith(follower);
	}

	private <T> T followingLayout(Supplier<T> call) {
		LayoutFollower follower = this.follower;
		return (follower != null) ? follower.retrying(() -> this.recurring.get().buckets(), call) : call.get();
	}

	@Override
	public Optional<PolledJob> poll(String topic, Duration maxWait) {
		return this.polls.apply(topic, maxWait);
	}

	/**
	 * Waits for a reply of the asynchronous client as this client's own calls do: bounded
	 * in time, failing with redeq's exception (unwrapped from the future's) with the
	 * caller's stack. For clients that decorate the asynchronous client and derive their
	 * blocking calls from it.
	 * @param reply the reply
	 * @param operation what was asked, for the message
	 * @param <T> the type of the reply
	 * @return the value of the reply
	 */
	@Override
	public <T> T await(CompletableFuture<T> reply, String operation) {
		try {
			return this.scripts.await(reply, operation, this.bound);
		}
		catch (RedeqException ex) {
			// Made on Lettuce's I/O thread, whose frames tell the caller nothing: the
			// caller's own stack (where it scheduled) is what a stack trace should show.
			ex.fillInStackTrace();
			throw ex;
		}
	}

}
