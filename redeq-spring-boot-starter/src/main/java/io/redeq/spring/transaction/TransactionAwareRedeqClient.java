package io.redeq.spring.transaction;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.RedeqClient;
import io.redeq.internal.Validate;
import io.redeq.schedule.JobIds;

/**
 * A {@link RedeqClient} that holds back changes made inside a Spring transaction until it
 * commits: a rolled-back order never fires its timeout. Outside a transaction (no
 * transaction synchronization active on the calling thread) every call goes straight to
 * the target client.
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
 * <li>{@code find} reads Redis at once; it does not see jobs still waiting for the
 * commit.</li>
 * <li>topic, id and delay are checked at the call; a payload that cannot be written, a
 * full queue or Redis being down surface as an exception from the commit (after the
 * transaction itself committed), and the other deferred changes are still applied.</li>
 * </ul>
 *
 * @since 0.1.0
 */
public class TransactionAwareRedeqClient implements RedeqClient {

	private final RedeqClient target;

	public TransactionAwareRedeqClient(RedeqClient target) {
		this.target = Objects.requireNonNull(target, "target must not be null");
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
			// Also cancels a job that Redis already held under the same id before this
			// transaction.
			deferred.add(new DeferredOperations.Cancel(topic, id));
			return true;
		}
		return false;
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
		if (deferred.rescheduleScheduled(topic, id, delay, dueAt)) {
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

	private boolean isWaiting(String topic, String id, boolean deadCounts) {
		return this.target.find(topic, id)
			.map(JobInfo::state)
			.filter((state) -> state == JobState.DELAYED || state == JobState.READY
					|| (deadCounts && state == JobState.DEAD))
			.isPresent();
	}

	private @Nullable DeferredOperations deferred() {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return null;
		}
		DeferredOperations deferred = (DeferredOperations) TransactionSynchronizationManager.getResource(this);
		if (deferred == null) {
			deferred = new DeferredOperations(this, this.target);
			TransactionSynchronizationManager.bindResource(this, deferred);
			TransactionSynchronizationManager.registerSynchronization(deferred);
		}
		return deferred;
	}

	private static Job withId(Job job) {
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
