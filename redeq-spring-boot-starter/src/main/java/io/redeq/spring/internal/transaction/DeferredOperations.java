package io.redeq.spring.internal.transaction;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.redeq.AsyncRedeqClient;
import io.redeq.Job;
import io.redeq.RedeqClient;

/**
 * The redeq changes one transaction made, applied after it commits and dropped when it
 * rolls back. Bound to the transaction as a resource keyed by the client, and unbound
 * while the transaction is suspended (as {@code ResourceHolderSynchronization} does), so
 * that an inner {@code REQUIRES_NEW} transaction collects its own changes.
 */
final class DeferredOperations implements TransactionSynchronization {

	private static final Log logger = LogFactory.getLog(DeferredOperations.class);

	private final Object key;

	private final RedeqClient target;

	private final @Nullable TransactionalOutbox outbox;

	private final List<Operation> operations = new ArrayList<>();

	/**
	 * The futures of asynchronous calls made in the transaction: completed by what is
	 * sent after commit, cancelled when it rolls back.
	 */
	private final List<CompletableFuture<?>> futures = new ArrayList<>();

	/**
	 * Futures of asynchronous calls that need nothing sent (a job scheduled and cancelled
	 * in the same transaction), and their results at commit.
	 */
	private final List<Runnable> settledAtCommit = new ArrayList<>();

	DeferredOperations(Object key, RedeqClient target, @Nullable TransactionalOutbox outbox) {
		this.key = key;
		this.target = target;
		this.outbox = outbox;
	}

	void schedule(Job job) {
		this.operations.add(new Schedule(job, null));
	}

	void schedule(Job job, CompletableFuture<String> result) {
		this.futures.add(result);
		this.operations.add(new Schedule(job, result));
	}

	void add(Operation operation) {
		CompletableFuture<?> result = operation.result();
		if (result != null) {
			this.futures.add(result);
		}
		this.operations.add(operation);
	}

	/** Completes {@code result} with {@code value} when the transaction commits. */
	<T> void settleAtCommit(CompletableFuture<T> result, T value) {
		this.futures.add(result);
		this.settledAtCommit.add(() -> result.complete(value));
	}

	/**
	 * Removes jobs with this topic and id scheduled earlier in the transaction; an
	 * asynchronous schedule among them completes with its id at commit, as the
	 * synchronous one returned it.
	 */
	boolean dropScheduled(String topic, String id) {
		return this.operations.removeIf((operation) -> {
			if (operation instanceof Schedule schedule && matches(schedule.job(), topic, id)) {
				if (schedule.result() != null) {
					this.settledAtCommit.add(() -> schedule.result().complete(id));
				}
				return true;
			}
			return false;
		});
	}

	/**
	 * Changes the due time of a job scheduled earlier in the transaction, before it is
	 * sent; returns the changed jobs, none if the transaction did not schedule it.
	 */
	List<Job> rescheduleScheduled(String topic, String id, @Nullable Duration delay, @Nullable Instant dueAt) {
		List<Job> changed = new ArrayList<>();
		for (ListIterator<Operation> it = this.operations.listIterator(); it.hasNext();) {
			if (it.next() instanceof Schedule schedule && matches(schedule.job(), topic, id)) {
				Job job = copy(schedule.job(), id, delay, dueAt);
				it.set(new Schedule(job, schedule.result()));
				changed.add(job);
			}
		}
		return changed;
	}

	private static boolean matches(Job job, String topic, String id) {
		return job.topic().equals(topic) && id.equals(job.id());
	}

	static Job copy(Job job, String id, @Nullable Duration delay, @Nullable Instant dueAt) {
		Job.Builder builder = Job.builder(job.topic()).id(id).payload(job.payload()).onDuplicate(job.onDuplicate());
		// The job's own settings travel with it.
		builder.priority(job.priority());
		if (job.timeout() != null) {
			builder.timeout(job.timeout());
		}
		if (job.maxAttempts() != null) {
			builder.maxAttempts(job.maxAttempts());
		}
		if (dueAt != null) {
			builder.dueAt(dueAt);
		}
		else if (delay != null) {
			builder.delay(delay);
		}
		return builder.build();
	}

	@Override
	public void suspend() {
		TransactionSynchronizationManager.unbindResource(this.key);
	}

	@Override
	public void resume() {
		TransactionSynchronizationManager.bindResource(this.key, this);
	}

	/**
	 * Writes what the transaction changed to the outbox, as the last step of the
	 * transaction: the jobs it schedules as they stand now (a job scheduled and then
	 * cancelled in it writes nothing, a rescheduled one its final due time, a delay
	 * counts from here, about the commit), and the cancels and reschedules of jobs that
	 * existed before it. Written this late, a row's age tells the relay how long ago its
	 * transaction committed, not how long the transaction ran. A failed write throws, and
	 * the transaction rolls back.
	 */
	@Override
	public void beforeCommit(boolean readOnly) {
		TransactionalOutbox outbox = this.outbox;
		if (outbox == null || this.operations.isEmpty()) {
			return;
		}
		List<Job> jobs = new ArrayList<>();
		for (Operation operation : this.operations) {
			if (operation instanceof Schedule schedule) {
				jobs.add(schedule.job());
			}
		}
		if (!jobs.isEmpty()) {
			outbox.write(jobs);
		}
		long now = System.currentTimeMillis();
		for (Operation operation : this.operations) {
			if (operation instanceof Cancel cancel) {
				outbox.cancel(cancel.topic(), cancel.id());
			}
			else if (operation instanceof CancelAll cancelAll) {
				cancelAll.ids().forEach((id) -> outbox.cancel(cancelAll.topic(), id));
			}
			else if (operation instanceof Reschedule reschedule) {
				Instant dueAt = (reschedule.dueAt() != null) ? reschedule.dueAt()
						: Instant.ofEpochMilli(now).plus(Objects.requireNonNull(reschedule.delay()));
				outbox.reschedule(reschedule.topic(), reschedule.id(), dueAt);
			}
		}
	}

	/**
	 * Applies every change in order, consecutive schedules in one pipelined batch. A
	 * failure does not stop the rest; the first one is thrown at the end, so the
	 * committer learns that a job was not sent. Changes made through the asynchronous
	 * client are sent without waiting, in the same order on the same connection, and
	 * complete their own futures: their failures are theirs, not the committer's.
	 */
	@Override
	public void afterCommit() {
		RuntimeException failure = null;
		List<Job> batch = new ArrayList<>();
		for (Operation operation : this.operations) {
			if (operation instanceof Schedule schedule && schedule.result() == null) {
				batch.add(schedule.job());
				continue;
			}
			failure = apply(() -> flush(batch), failure);
			if (operation.result() != null) {
				sendAsync(operation);
			}
			else {
				failure = apply(() -> apply(operation), failure);
			}
		}
		failure = apply(() -> flush(batch), failure);
		this.settledAtCommit.forEach(Runnable::run);
		if (failure != null) {
			throw failure;
		}
	}

	private void sendAsync(Operation operation) {
		try {
			AsyncRedeqClient async = this.target.async();
			if (operation instanceof Schedule schedule) {
				completeWith(schedule.result(), async.schedule(schedule.job()));
			}
			else if (operation instanceof Cancel cancel) {
				completeWith(cancel.result(),
						async.cancel(cancel.topic(), cancel.id()).thenApply((done) -> done || cancel.droppedHere()));
			}
			else if (operation instanceof Reschedule reschedule) {
				completeWith(reschedule.result(),
						(reschedule.dueAt() != null)
								? async.reschedule(reschedule.topic(), reschedule.id(), reschedule.dueAt())
								: async.reschedule(reschedule.topic(), reschedule.id(),
										Objects.requireNonNull(reschedule.delay())));
			}
		}
		catch (RuntimeException ex) {
			Objects.requireNonNull(operation.result()).completeExceptionally(ex);
		}
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static void completeWith(@Nullable CompletableFuture result, CompletableFuture<?> sent) {
		CompletableFuture<Object> target = Objects.requireNonNull(result);
		sent.whenComplete((value, ex) -> {
			if (ex != null) {
				target.completeExceptionally(
						(ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex);
			}
			else {
				target.complete(value);
			}
		});
	}

	private void flush(List<Job> batch) {
		if (batch.isEmpty()) {
			return;
		}
		try {
			if (batch.size() == 1) {
				this.target.schedule(batch.get(0));
			}
			else {
				this.target.scheduleAll(List.copyOf(batch));
			}
		}
		finally {
			batch.clear();
		}
	}

	private void apply(Operation operation) {
		if (operation instanceof Cancel cancel) {
			this.target.cancel(cancel.topic(), cancel.id());
		}
		else if (operation instanceof CancelAll cancelAll) {
			this.target.cancelAll(cancelAll.topic(), cancelAll.ids());
		}
		else if (operation instanceof Reschedule reschedule) {
			if (reschedule.dueAt() != null) {
				this.target.reschedule(reschedule.topic(), reschedule.id(), reschedule.dueAt());
			}
			else {
				this.target.reschedule(reschedule.topic(), reschedule.id(), Objects.requireNonNull(reschedule.delay()));
			}
		}
	}

	private static @Nullable RuntimeException apply(Runnable action, @Nullable RuntimeException failure) {
		try {
			action.run();
			return failure;
		}
		catch (RuntimeException ex) {
			logger.error("redeq could not apply a change made in a committed transaction: " + ex.getMessage(), ex);
			if (failure == null) {
				return ex;
			}
			failure.addSuppressed(ex);
			return failure;
		}
	}

	@Override
	public void afterCompletion(int status) {
		if (TransactionSynchronizationManager.hasResource(this.key)) {
			TransactionSynchronizationManager.unbindResource(this.key);
		}
		if (status != STATUS_COMMITTED && !this.operations.isEmpty() && logger.isDebugEnabled()) {
			logger.debug(
					"Dropped " + this.operations.size() + " redeq change(s) because their transaction did not commit");
		}
		if (status != STATUS_COMMITTED) {
			for (CompletableFuture<?> future : this.futures) {
				future.completeExceptionally(new CancellationException(
						"redeq sent nothing: the transaction this call was made in did not commit"));
			}
		}
		this.operations.clear();
		this.futures.clear();
		this.settledAtCommit.clear();
	}

	sealed interface Operation permits Schedule, Cancel, CancelAll, Reschedule {

		/**
		 * The future of the asynchronous call that made this change, {@code null} for a
		 * synchronous one.
		 */
		@Nullable CompletableFuture<?> result();

	}

	record Schedule(Job job, @Nullable CompletableFuture<String> result) implements Operation {
	}

	/**
	 * A cancel; {@code droppedHere} when it also dropped a job scheduled earlier in the
	 * transaction, which an asynchronous caller counts as cancelled.
	 */
	record Cancel(String topic, String id, @Nullable CompletableFuture<Boolean> result,
			boolean droppedHere) implements Operation {

		Cancel(String topic, String id) {
			this(topic, id, null, false);
		}

	}

	/**
	 * A bulk cancel of jobs that were waiting at the call or scheduled earlier in the
	 * transaction; made by the synchronous client only.
	 */
	record CancelAll(String topic, List<String> ids) implements Operation {

		@Override
		public @Nullable CompletableFuture<?> result() {
			return null;
		}

	}

	record Reschedule(String topic, String id, @Nullable Duration delay, @Nullable Instant dueAt,
			@Nullable CompletableFuture<Boolean> result) implements Operation {

		Reschedule(String topic, String id, @Nullable Duration delay, @Nullable Instant dueAt) {
			this(topic, id, delay, dueAt, null);
		}

	}

}
