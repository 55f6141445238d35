package io.redeq.spring.transaction;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.redeq.AsyncRedeqClient;
import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.PolledJob;
import io.redeq.Recurring;
import io.redeq.RedeqClient;
import io.redeq.internal.Validate;
import io.redeq.schedule.AsyncJobScheduler;
import io.redeq.schedule.JobIds;

/**
 * A {@link RedeqClient} that holds back changes made inside a Spring transaction until it
 * commits: a rolled-back order never fires its timeout. Outside a transaction (no actual
 * transaction on the calling thread) every call goes straight to the target client.
 *
 * <p>
 * Inside a transaction:
 * <ul>
 * <li>{@code schedule}, {@code scheduleAt} and {@code scheduleAll} return the job's id at
 * once (generated here when the job has none) and send the jobs after commit, in one
 * pipelined batch where possible. A delay counts from the commit, not from the call.</li>
 * <li>{@code cancel} and {@code reschedule} apply after commit. They return {@code true}
 * when the job is scheduled earlier in the same transaction (which is then changed before
 * it is sent) or is waiting in Redis at the time of the call; {@code false} otherwise,
 * and nothing is deferred.</li>
 * <li>{@code cancelAll} applies after commit, in one pipelined round: it returns how many
 * of its ids are scheduled earlier in the same transaction or wait (DELAYED or READY) in
 * Redis at the time of the call, looked up in one pipelined round; only those are
 * deferred.</li>
 * <li>{@code find} reads Redis at once; it does not see jobs still waiting for the
 * commit.</li>
 * <li>with an outbox (the journal), what the transaction changed is written to it just
 * before the commit, in the transaction, so a change whose send after commit never
 * happens is still applied later.</li>
 * <li>topic, id and delay are checked at the call; a payload that cannot be written, a
 * full queue or Redis being down surface as an exception from the commit (after the
 * transaction itself committed), and the other deferred changes are still applied.</li>
 * </ul>
 *
 * @since 0.1.0
 */
public class TransactionAwareRedeqClient implements RedeqClient {

	private final RedeqClient target;

	private final TransactionAwareAsyncRedeqClient async = new TransactionAwareAsyncRedeqClient(this);

	private final @Nullable TransactionalOutbox outbox;

	public TransactionAwareRedeqClient(RedeqClient target) {
		this(target, null);
	}

	/**
	 * A client that also writes the jobs a transaction schedules to an outbox, in that
	 * transaction.
	 * @param target the client that talks to Redis
	 * @param outbox the outbox, or null for none
	 */
	public TransactionAwareRedeqClient(RedeqClient target, @Nullable TransactionalOutbox outbox) {
		this.target = Objects.requireNonNull(target, "target must not be null");
		this.outbox = outbox;
	}

	/**
	 * The asynchronous view, transaction-aware in the same way: inside a transaction a
	 * change joins the changes sent at commit (together with this client's, in call
	 * order) and its future completes once the commit sent it; when the transaction rolls
	 * back, nothing is sent and the future completes exceptionally with a
	 * {@link java.util.concurrent.CancellationException}. There, {@code cancel} and
	 * {@code reschedule} need no look-up in Redis: they complete with Redis's answer
	 * after commit ({@code true} for a job scheduled earlier in the same transaction).
	 * Outside a transaction every call goes to the target's asynchronous client.
	 * @return the asynchronous client
	 */
	@Override
	public AsyncRedeqClient async() {
		return this.async;
	}

	/** The client that talks to Redis. */
	public RedeqClient getTargetClient() {
		return this.target;
	}

	@Override
	public String schedule(String topic, @Nullable Object payload, Duration delay) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return this.target.schedule(topic, payload, delay);
		}
		Validate.topic(topic);
		Validate.delay(topic, delay);
		Job job = Job.builder(topic).id(JobIds.next()).payload(payload).delay(delay).build();
		deferred.schedule(job);
		return Objects.requireNonNull(job.id());
	}

	@Override
	public String scheduleAt(String topic, @Nullable Object payload, Instant dueAt) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return this.target.scheduleAt(topic, payload, dueAt);
		}
		Validate.topic(topic);
		Validate.dueAt(topic, dueAt);
		Job job = Job.builder(topic).id(JobIds.next()).payload(payload).dueAt(dueAt).build();
		deferred.schedule(job);
		return Objects.requireNonNull(job.id());
	}

	@Override
	public String schedule(Job job) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return this.target.schedule(job);
		}
		Job withId = withId(job);
		deferred.schedule(withId);
		return Objects.requireNonNull(withId.id());
	}

	@Override
	public List<String> scheduleAll(Collection<Job> jobs) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return this.target.scheduleAll(jobs);
		}
		Objects.requireNonNull(jobs, "jobs must not be null");
		List<String> ids = new ArrayList<>(jobs.size());
		List<Job> withIds = new ArrayList<>(jobs.size());
		for (Job job : jobs) {
			Job withId = withId(job);
			withIds.add(withId);
			ids.add(Objects.requireNonNull(withId.id()));
		}
		withIds.forEach(deferred::schedule);
		return ids;
	}

	@Override
	public boolean cancel(String topic, String id) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return this.target.cancel(topic, id);
		}
		Validate.topic(topic);
		Validate.id(topic, id);
		boolean wasScheduledHere = deferred.dropScheduled(topic, id);
		if (wasScheduledHere || isWaiting(topic, id, true)) {
			// Also cancels a job that Redis already held under the same id
			// before this transaction.
			deferred.add(new DeferredOperations.Cancel(topic, id));
			return true;
		}
		return false;
	}

	@Override
	public long cancelAll(String topic, Collection<String> ids) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return this.target.cancelAll(topic, ids);
		}
		Validate.topic(topic);
		Objects.requireNonNull(ids, () -> "ids to cancel in topic '" + topic + "' must not be null");
		if (ids.size() > AsyncJobScheduler.MAX_CANCEL_ALL) {
			// The target refuses it at commit: refused here, the caller learns it first.
			throw new IllegalArgumentException("cancelAll in topic '" + topic + "' takes at most "
					+ AsyncJobScheduler.MAX_CANCEL_ALL + " ids per call, but got " + ids.size());
		}
		Set<String> distinct = new LinkedHashSet<>();
		for (String id : ids) {
			distinct.add(Validate.id(topic, id));
		}
		List<String> scheduledHere = new ArrayList<>();
		List<String> others = new ArrayList<>();
		for (String id : distinct) {
			(deferred.dropScheduled(topic, id) ? scheduledHere : others).add(id);
		}
		List<String> cancelled = new ArrayList<>(scheduledHere);
		cancelled.addAll(waitingAmong(topic, others));
		if (!cancelled.isEmpty()) {
			// Also cancels jobs that Redis already held under the ids scheduled here.
			deferred.add(new DeferredOperations.CancelAll(topic, List.copyOf(cancelled)));
		}
		return cancelled.size();
	}

	/**
	 * The ids whose jobs wait (DELAYED or READY) in Redis now: one look-up each, all sent
	 * before the first answer is awaited.
	 */
	private List<String> waitingAmong(String topic, List<String> ids) {
		AsyncRedeqClient async = this.target.async();
		List<CompletableFuture<Optional<JobInfo>>> lookups = new ArrayList<>(ids.size());
		for (String id : ids) {
			lookups.add(async.find(topic, id));
		}
		List<String> waiting = new ArrayList<>();
		for (int i = 0; i < ids.size(); i++) {
			Optional<JobInfo> job = join(lookups.get(i));
			if (job.map(JobInfo::state)
				.filter((state) -> state == JobState.DELAYED || state == JobState.READY)
				.isPresent()) {
				waiting.add(ids.get(i));
			}
		}
		return waiting;
	}

	private static <T> T join(CompletableFuture<T> future) {
		try {
			return future.join();
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof RuntimeException cause) {
				throw cause;
			}
			throw ex;
		}
	}

	@Override
	public boolean reschedule(String topic, String id, Duration delay) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return this.target.reschedule(topic, id, delay);
		}
		Validate.topic(topic);
		Validate.id(topic, id);
		Validate.delay(topic, delay);
		return reschedule(deferred, topic, id, delay, null);
	}

	@Override
	public boolean reschedule(String topic, String id, Instant dueAt) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return this.target.reschedule(topic, id, dueAt);
		}
		Validate.topic(topic);
		Validate.id(topic, id);
		Validate.dueAt(topic, dueAt);
		return reschedule(deferred, topic, id, null, dueAt);
	}

	private boolean reschedule(DeferredOperations deferred, String topic, String id, @Nullable Duration delay,
			@Nullable Instant dueAt) {
		List<Job> rescheduled = deferred.rescheduleScheduled(topic, id, delay, dueAt);
		if (!rescheduled.isEmpty()) {
			return true;
		}
		if (isWaiting(topic, id, false)) {
			deferred.add(new DeferredOperations.Reschedule(topic, id, delay, dueAt));
			return true;
		}
		return false;
	}

	@Override
	public Optional<JobInfo> find(String topic, String id) {
		return this.target.find(topic, id);
	}

	/**
	 * Declares a recurring job at once, also inside a transaction: a declaration is
	 * configuration, and declaring it again changes nothing.
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
	 * Polls at once, also inside a transaction: the job is leased now, and its
	 * {@link PolledJob#ack()} or {@link PolledJob#fail(Throwable)} is applied when
	 * called, not at commit.
	 */
	@Override
	public Optional<PolledJob> poll(String topic, Duration maxWait) {
		return this.target.poll(topic, maxWait);
	}

	private boolean isWaiting(String topic, String id, boolean deadCounts) {
		return this.target.find(topic, id)
			.map(JobInfo::state)
			.filter((state) -> state == JobState.DELAYED || state == JobState.READY
					|| (deadCounts && state == JobState.DEAD))
			.isPresent();
	}

	/**
	 * The changes of the current transaction, or null outside one. Only an actual
	 * transaction defers: a scope with synchronization but no transaction
	 * ({@code SUPPORTS} or {@code NOT_SUPPORTED} without an outer one) has nothing to
	 * commit or roll back, so its changes go to Redis at once, as outside any scope.
	 */
	@Nullable DeferredOperations deferred() {
		if (!TransactionSynchronizationManager.isSynchronizationActive()
				|| !TransactionSynchronizationManager.isActualTransactionActive()) {
			return null;
		}
		DeferredOperations deferred = (DeferredOperations) TransactionSynchronizationManager.getResource(this);
		if (deferred == null) {
			deferred = new DeferredOperations(this, this.target, this.outbox);
			TransactionSynchronizationManager.bindResource(this, deferred);
			TransactionSynchronizationManager.registerSynchronization(deferred);
		}
		return deferred;
	}

	static Job withId(Job job) {
		Objects.requireNonNull(job, "job must not be null");
		Validate.topic(job.topic());
		if (job.id() != null) {
			Validate.id(job.topic(), job.id());
			if (job.delay() != null) {
				Validate.delay(job.topic(), job.delay());
			}
			return job;
		}
		return DeferredOperations.copy(job, JobIds.next(), job.delay(), job.dueAt());
	}

}
