package io.redeq.spring.transaction;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;
import java.util.Objects;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

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

	private final List<Operation> operations = new ArrayList<>();

	DeferredOperations(Object key, RedeqClient target) {
		this.key = key;
		this.target = target;
	}

	void schedule(Job job) {
		this.operations.add(new Schedule(job));
	}

	void add(Operation operation) {
		this.operations.add(operation);
	}

	/** Removes jobs with this topic and id scheduled earlier in the transaction. */
	boolean dropScheduled(String topic, String id) {
		return this.operations
			.removeIf((operation) -> operation instanceof Schedule schedule && matches(schedule.job(), topic, id));
	}

	/**
	 * Changes the due time of a job scheduled earlier in the transaction, before it is
	 * sent.
	 */
	boolean rescheduleScheduled(String topic, String id, @Nullable Duration delay, @Nullable Instant dueAt) {
		boolean found = false;
		for (ListIterator<Operation> it = this.operations.listIterator(); it.hasNext();) {
			if (it.next() instanceof Schedule schedule && matches(schedule.job(), topic, id)) {
				it.set(new Schedule(copy(schedule.job(), id, delay, dueAt)));
				found = true;
			}
		}
		return found;
	}

	private static boolean matches(Job job, String topic, String id) {
		return job.topic().equals(topic) && id.equals(job.id());
	}

	static Job copy(Job job, String id, @Nullable Duration delay, @Nullable Instant dueAt) {
		Job.Builder builder = Job.builder(job.topic()).id(id).payload(job.payload()).onDuplicate(job.onDuplicate());
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
	 * Applies every change in order, consecutive schedules in one pipelined batch. A
	 * failure does not stop the rest; the first one is thrown at the end, so the
	 * committer learns that a job was not sent.
	 */
	@Override
	public void afterCommit() {
		RuntimeException failure = null;
		List<Job> batch = new ArrayList<>();
		for (Operation operation : this.operations) {
			if (operation instanceof Schedule schedule) {
				batch.add(schedule.job());
				continue;
			}
			failure = apply(() -> flush(batch), failure);
			failure = apply(() -> apply(operation), failure);
		}
		failure = apply(() -> flush(batch), failure);
		if (failure != null) {
			throw failure;
		}
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
		this.operations.clear();
	}

	sealed interface Operation permits Schedule, Cancel, Reschedule {

	}

	record Schedule(Job job) implements Operation {
	}

	record Cancel(String topic, String id) implements Operation {
	}

	record Reschedule(String topic, String id, @Nullable Duration delay, @Nullable Instant dueAt) implements Operation {
	}

}
