package io.redeq.spring.internal.transaction;

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

import io.redeq.AsyncRedeqClient;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.PolledJob;
import io.redeq.RedeqClient;
import io.redeq.internal.Validate;
import io.redeq.internal.schedule.AsyncJobScheduler;
import io.redeq.spring.internal.BlockingRedeqClient;

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
 * <p>
 * Also inside a transaction, recurring jobs are declared and cancelled at once: a
 * declaration is configuration, and declaring it again changes nothing. {@code poll}
 * polls at once: the job is leased now, and its {@link PolledJob#ack()} or
 * {@link PolledJob#fail(Throwable)} is applied when called, not at commit.
 *
 * <p>
 * The decorator is written once ({@code TransactionAwareAsyncRedeqClient}); the blocking
 * calls await it, which inside a transaction answers at once.
 *
 * @since 0.1.0
 */
public class TransactionAwareRedeqClient extends BlockingRedeqClient {

	private final TransactionAwareAsyncRedeqClient blocking;

	private final TransactionAwareAsyncRedeqClient async;

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
		this(Objects.requireNonNull(target, "target must not be null"), outbox, new Object());
	}

	private TransactionAwareRedeqClient(RedeqClient target, @Nullable TransactionalOutbox outbox, Object key) {
		this(target, new TransactionAwareAsyncRedeqClient(target, outbox, key, true),
				new TransactionAwareAsyncRedeqClient(target, outbox, key, false));
	}

	private TransactionAwareRedeqClient(RedeqClient target, TransactionAwareAsyncRedeqClient blocking,
			TransactionAwareAsyncRedeqClient async) {
		super(blocking, target);
		this.blocking = blocking;
		this.async = async;
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
		return target();
	}

	@Override
	public long cancelAll(String topic, Collection<String> ids) {
		DeferredOperations deferred = this.blocking.deferred();
		if (deferred == null) {
			return target().cancelAll(topic, ids);
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
		AsyncRedeqClient async = target().async();
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

}
