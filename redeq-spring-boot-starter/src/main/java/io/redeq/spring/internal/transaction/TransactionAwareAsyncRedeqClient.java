package io.redeq.spring.internal.transaction;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.redeq.AsyncRedeqClient;
import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.RedeqClient;
import io.redeq.internal.JobIds;
import io.redeq.internal.Validate;

/**
 * The transaction-aware decorator, written once for both views of a
 * {@link TransactionAwareRedeqClient}: outside a transaction every call goes to the
 * target's asynchronous client; inside one the change joins the transaction's deferred
 * changes.
 *
 * <p>
 * The asynchronous view's future completes once the commit sent the change (or
 * exceptionally with a {@link java.util.concurrent.CancellationException} when the
 * transaction rolls back: nothing was sent). The blocking view's future is complete when
 * the call returns: the id of a scheduled job, or whether a cancel or reschedule applies
 * (a job scheduled earlier in the transaction, or one waiting in Redis now); what the
 * commit then sends fails, if it does, from the commit.
 */
final class TransactionAwareAsyncRedeqClient implements AsyncRedeqClient {

	private final RedeqClient target;

	private final @Nullable TransactionalOutbox outbox;

	private final Object key;

	private final boolean blocking;

	/**
	 * One view.
	 * @param target the client that talks to Redis
	 * @param outbox the outbox, or null for none
	 * @param key the key of the transaction's deferred changes, shared by both views so
	 * that their changes are sent in call order
	 * @param blocking whether this is the blocking view's decorator
	 */
	TransactionAwareAsyncRedeqClient(RedeqClient target, @Nullable TransactionalOutbox outbox, Object key,
			boolean blocking) {
		this.target = target;
		this.outbox = outbox;
		this.key = key;
		this.blocking = blocking;
	}

	private AsyncRedeqClient target() {
		return this.target.async();
	}

	@Override
	public CompletableFuture<String> schedule(String topic, @Nullable Object payload, Duration delay) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return target().schedule(topic, payload, delay);
		}
		Validate.topic(topic);
		Validate.delay(topic, delay);
		return schedule(deferred, Job.builder(topic).id(JobIds.next()).payload(payload).delay(delay).build());
	}

	@Override
	public CompletableFuture<String> scheduleAt(String topic, @Nullable Object payload, Instant dueAt) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return target().scheduleAt(topic, payload, dueAt);
		}
		Validate.topic(topic);
		Validate.dueAt(topic, dueAt);
		return schedule(deferred, Job.builder(topic).id(JobIds.next()).payload(payload).dueAt(dueAt).build());
	}

	@Override
	public CompletableFuture<String> schedule(Job job) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return target().schedule(job);
		}
		return schedule(deferred, withId(job));
	}

	/**
	 * Defers a job, sent after commit in one pipelined batch with the blocking view's
	 * other jobs, or on its own for the asynchronous view. The outbox row, if any, is
	 * written just before the commit (DeferredOperations).
	 */
	private CompletableFuture<String> schedule(DeferredOperations deferred, Job job) {
		if (this.blocking) {
			deferred.schedule(job);
			return CompletableFuture.completedFuture(Objects.requireNonNull(job.id()));
		}
		CompletableFuture<String> result = new CompletableFuture<>();
		deferred.schedule(job, result);
		return result;
	}

	/**
	 * Inside a transaction the asynchronous view sends each job on its own after commit
	 * (pipelined), so each gets its own outcome; the future completes once all answered,
	 * failing with the first failure in job order.
	 */
	@Override
	public CompletableFuture<List<String>> scheduleAll(Collection<Job> jobs) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return target().scheduleAll(jobs);
		}
		Objects.requireNonNull(jobs, "jobs must not be null");
		List<Job> withIds = new ArrayList<>(jobs.size());
		for (Job job : jobs) {
			withIds.add(withId(job));
		}
		List<CompletableFuture<String>> each = new ArrayList<>(withIds.size());
		withIds.forEach((job) -> each.add(schedule(deferred, job)));
		CompletableFuture<List<String>> result = new CompletableFuture<>();
		CompletableFuture.allOf(each.toArray(CompletableFuture[]::new)).whenComplete((ignored, ex) -> {
			for (CompletableFuture<String> one : each) {
				if (one.isCompletedExceptionally()) {
					result.completeExceptionally(causeOf(one));
					return;
				}
			}
			result.complete(each.stream().map(CompletableFuture::join).toList());
		});
		return result;
	}

	/**
	 * The failure of a future that completed exceptionally: the exception itself, a
	 * {@link java.util.concurrent.CancellationException} when the transaction rolled
	 * back.
	 */
	private static Throwable causeOf(CompletableFuture<?> failed) {
		Throwable ex = failed.handle((value, failure) -> failure).join();
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	/**
	 * Inside a transaction the cancel is sent after commit. The asynchronous view's
	 * future completes with Redis's answer, or {@code true} if the job was scheduled
	 * earlier in the same transaction (and so never sent). The blocking view answers now:
	 * {@code true} for such a job or one waiting (or dead) in Redis, and defers only
	 * those.
	 */
	@Override
	public CompletableFuture<Boolean> cancel(String topic, String id) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return target().cancel(topic, id);
		}
		Validate.topic(topic);
		Validate.id(topic, id);
		boolean droppedHere = deferred.dropScheduled(topic, id);
		if (this.blocking) {
			if (droppedHere || isWaiting(topic, id, true)) {
				// Also cancels a job that Redis already held under the same id
				// before this transaction.
				deferred.add(new DeferredOperations.Cancel(topic, id));
				return CompletableFuture.completedFuture(true);
			}
			return CompletableFuture.completedFuture(false);
		}
		CompletableFuture<Boolean> result = new CompletableFuture<>();
		deferred.add(new DeferredOperations.Cancel(topic, id, result, droppedHere));
		return result;
	}

	@Override
	public CompletableFuture<Boolean> reschedule(String topic, String id, Duration delay) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return target().reschedule(topic, id, delay);
		}
		Validate.topic(topic);
		Validate.id(topic, id);
		Validate.delay(topic, delay);
		return reschedule(deferred, topic, id, delay, null);
	}

	@Override
	public CompletableFuture<Boolean> reschedule(String topic, String id, Instant dueAt) {
		DeferredOperations deferred = deferred();
		if (deferred == null) {
			return target().reschedule(topic, id, dueAt);
		}
		Validate.topic(topic);
		Validate.id(topic, id);
		Validate.dueAt(topic, dueAt);
		return reschedule(deferred, topic, id, null, dueAt);
	}

	/**
	 * A job scheduled earlier in the transaction gets its new due time before it is sent
	 * ({@code true}, for the asynchronous view at commit). Any other reschedule is sent
	 * after commit: the asynchronous view completes with Redis's answer; the blocking
	 * view answers now whether the job waits in Redis, and defers only then.
	 */
	private CompletableFuture<Boolean> reschedule(DeferredOperations deferred, String topic, String id,
			@Nullable Duration delay, @Nullable Instant dueAt) {
		List<Job> rescheduled = deferred.rescheduleScheduled(topic, id, delay, dueAt);
		if (this.blocking) {
			if (!rescheduled.isEmpty()) {
				return CompletableFuture.completedFuture(true);
			}
			if (isWaiting(topic, id, false)) {
				deferred.add(new DeferredOperations.Reschedule(topic, id, delay, dueAt));
				return CompletableFuture.completedFuture(true);
			}
			return CompletableFuture.completedFuture(false);
		}
		CompletableFuture<Boolean> result = new CompletableFuture<>();
		if (!rescheduled.isEmpty()) {
			deferred.settleAtCommit(result, true);
		}
		else {
			deferred.add(new DeferredOperations.Reschedule(topic, id, delay, dueAt, result));
		}
		return result;
	}

	@Override
	public CompletableFuture<Optional<JobInfo>> find(String topic, String id) {
		return target().find(topic, id);
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
		DeferredOperations deferred = (DeferredOperations) TransactionSynchronizationManager.getResource(this.key);
		if (deferred == null) {
			deferred = new DeferredOperations(this.key, this.target, this.outbox);
			TransactionSynchronizationManager.bindResource(this.key, deferred);
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
