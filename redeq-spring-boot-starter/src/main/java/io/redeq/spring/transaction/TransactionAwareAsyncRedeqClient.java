package io.redeq.spring.transaction;

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

import io.redeq.AsyncRedeqClient;
import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.internal.Validate;
import io.redeq.schedule.JobIds;

/**
 * The asynchronous view of a {@link TransactionAwareRedeqClient}: outside a transaction
 * every call goes to the target's asynchronous client; inside one the change joins the
 * transaction's deferred changes, and its future completes once the commit sent it (or
 * exceptionally with a {@link java.util.concurrent.CancellationException} when the
 * transaction rolls back: nothing was sent).
 */
final class TransactionAwareAsyncRedeqClient implements AsyncRedeqClient {

	private final TransactionAwareRedeqClient owner;

	TransactionAwareAsyncRedeqClient(TransactionAwareRedeqClient owner) {
		this.owner = owner;
	}

	private AsyncRedeqClient target() {
		return this.owner.getTargetClient().async();
	}

	@Override
	public CompletableFuture<String> schedule(String topic, @Nullable Object payload, Duration delay) {
		DeferredOperations deferred = this.owner.deferred();
		if (deferred == null) {
			return target().schedule(topic, payload, delay);
		}
		Validate.topic(topic);
		Validate.delay(topic, delay);
		return schedule(deferred, Job.builder(topic).id(JobIds.next()).payload(payload).delay(delay).build());
	}

	@Override
	public CompletableFuture<String> scheduleAt(String topic, @Nullable Object payload, Instant dueAt) {
		DeferredOperations deferred = this.owner.deferred();
		if (deferred == null) {
			return target().scheduleAt(topic, payload, dueAt);
		}
		Validate.topic(topic);
		Validate.dueAt(topic, dueAt);
		return schedule(deferred, Job.builder(topic).id(JobIds.next()).payload(payload).dueAt(dueAt).build());
	}

	@Override
	public CompletableFuture<String> schedule(Job job) {
		DeferredOperations deferred = this.owner.deferred();
		if (deferred == null) {
			return target().schedule(job);
		}
		return schedule(deferred, TransactionAwareRedeqClient.withId(job));
	}

	private CompletableFuture<String> schedule(DeferredOperations deferred, Job job) {
		// The outbox row, if any, is written just before the commit (DeferredOperations).
		CompletableFuture<String> result = new CompletableFuture<>();
		deferred.schedule(job, result);
		return result;
	}

	/**
	 * Inside a transaction each job is sent on its own after commit (pipelined), so each
	 * gets its own outcome; the future completes once all answered, failing with the
	 * first failure in job order.
	 */
	@Override
	public CompletableFuture<List<String>> scheduleAll(Collection<Job> jobs) {
		DeferredOperations deferred = this.owner.deferred();
		if (deferred == null) {
			return target().scheduleAll(jobs);
		}
		Objects.requireNonNull(jobs, "jobs must not be null");
		List<Job> withIds = new ArrayList<>(jobs.size());
		for (Job job : jobs) {
			withIds.add(TransactionAwareRedeqClient.withId(job));
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
	 * Inside a transaction the cancel is sent after commit and the future completes with
	 * Redis's answer, or {@code true} if the job was scheduled earlier in the same
	 * transaction (and so never sent).
	 */
	@Override
	public CompletableFuture<Boolean> cancel(String topic, String id) {
		DeferredOperations deferred = this.owner.deferred();
		if (deferred == null) {
			return target().cancel(topic, id);
		}
		Validate.topic(topic);
		Validate.id(topic, id);
		boolean droppedHere = deferred.dropScheduled(topic, id);
		CompletableFuture<Boolean> result = new CompletableFuture<>();
		deferred.add(new DeferredOperations.Cancel(topic, id, result, droppedHere));
		return result;
	}

	@Override
	public CompletableFuture<Boolean> reschedule(String topic, String id, Duration delay) {
		DeferredOperations deferred = this.owner.deferred();
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
		DeferredOperations deferred = this.owner.deferred();
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
	 * (the future completes {@code true} at commit); any other reschedule is sent after
	 * commit and completes with Redis's answer.
	 */
	private CompletableFuture<Boolean> reschedule(DeferredOperations deferred, String topic, String id,
			@Nullable Duration delay, @Nullable Instant dueAt) {
		CompletableFuture<Boolean> result = new CompletableFuture<>();
		List<Job> rescheduled = deferred.rescheduleScheduled(topic, id, delay, dueAt);
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

}
