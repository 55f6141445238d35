package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

import io.lettuce.core.RedisException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.RedeqUnavailableException;
import io.redeq.internal.LogOnce;
import io.redeq.internal.redis.ClaimResult;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.CompletionReply;
import io.redeq.internal.redis.RedisJobStore;

/**
 * Completes finished jobs in batches, one complete script per bucket for the jobs that
 * finished within {@link #LINGER} (or while the previous batch was on its way), and keeps
 * at it until Redis answers for each job.
 *
 * <p>
 * A completion waits up to {@link #LINGER} for others of its bucket, so that one script
 * completes them together: jobs that fall due one by one otherwise cost one script each
 * to complete. It goes at once when it may claim the consumer's next jobs in the same
 * script (a backlog waits READY in its bucket), so a drain never waits for it. Waiting
 * costs nothing but time: the job's lease is renewed meanwhile, and an instance that dies
 * before sending loses no job; its handler ran, and the job runs again once its lease
 * expires, as after any crash between a handler's return and its completion
 * (at-least-once).
 *
 * <p>
 * The thread that finds no batch in flight sends the next one; the others return at once.
 * A batch Redis fails is not dropped: its jobs wait for a retry on the consumer's timer
 * (backing off up to {@link #MAX_RETRY_DELAY}) while {@link LeaseKeeper} keeps renewing
 * their leases ({@link #unconfirmed()}), so a job whose handler succeeded runs again only
 * if its claim was really lost. A job's completion ends when Redis answers for it:
 * completed, or the claim is no longer ours (from the complete script or from a refused
 * renewal, {@link #claimLost(ClaimedJob)}).
 *
 * <p>
 * One class because batching, the retry with backoff and the answers that end a
 * completion are one state machine around one queue; split, each part would need the
 * others' locks.
 */
final class Acknowledgements implements LeaseKeeper.Completions {

	static final Duration FIRST_RETRY_DELAY = Duration.ofMillis(100);

	static final Duration MAX_RETRY_DELAY = Duration.ofSeconds(2);

	/**
	 * How long a completion that claims nothing may wait for others of its bucket:
	 * without it, jobs falling due one by one each complete with a script of their own.
	 */
	static final Duration LINGER = Duration.ofMillis(20);

	/**
	 * How long a completion may wait for the migrate call that next hands this consumer
	 * jobs of its bucket, to ride on it (see migrate.lua): while the migrator hands them
	 * over, a bucket's calls come a look-ahead apart
	 * ({@link HandOffs#LOOK_AHEAD_MILLIS}), so a little longer than that. Shorter than
	 * the look-ahead, the completions miss the call and go alone.
	 */
	static final Duration RIDE_WAIT = Duration.ofMillis(HandOffs.LOOK_AHEAD_MILLIS + 10);

	/**
	 * How long the oldest of a bucket's completions must have waited before a migrate
	 * call takes them. A ride adds four commands to the call (a complete script of its
	 * own runs six); at high rates the migrator calls a bucket every few ms, and taking
	 * the few completions of each call cost more than one script per {@link #LINGER}.
	 */
	static final Duration RIDE_AFTER = Duration.ofMillis(10);

	/** The most completions one migrate call carries (migrate.lua's limit). */
	static final int MAX_RIDING = 500;

	private static final Logger logger = LoggerFactory.getLogger(Acknowledgements.class);

	private final CompletionScripts store;

	private final String topic;

	private final ScheduledExecutorService timers;

	private final Executor retries;

	private final NextJobs nextJobs;

	/** {@link System#nanoTime()}, or a test's clock: when a completion may ride. */
	private final LongSupplier nanoClock;

	private final Queue<PendingCompletion> queue = new ConcurrentLinkedQueue<>();

	private final Map<ClaimedJob, PendingCompletion> unconfirmed = new ConcurrentHashMap<>();

	private final AtomicBoolean sending = new AtomicBoolean();

	/** Set while a send is planned {@link #LINGER} from when it was set. */
	private final AtomicBoolean lingering = new AtomicBoolean();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	private final LogOnce failures = new LogOnce(logger);

	/** Set while a retry is scheduled: workers then queue without sending. */
	private volatile boolean backingOff;

	/** Set once closing flushes: nothing waits for a ride any more. */
	private volatile boolean flushing;

	/**
	 * Set when a job queued since the last batch may claim in its bucket: the batch then
	 * goes without waiting.
	 */
	private volatile boolean claimsWaiting;

	/** Batches failed in a row; only the sender (holding {@link #sending}) touches it. */
	private int failuresInARow;

	/**
	 * Sends nothing until a finished job is queued.
	 * @param retries where a scheduled retry sends (a worker thread: the shared timer
	 * thread must never wait on Redis)
	 * @param nextJobs where a completion finds free slots to claim into in the same
	 * script
	 */
	Acknowledgements(RedisJobStore store, String topic, ScheduledExecutorService timers, Executor retries,
			NextJobs nextJobs) {
		this(CompletionScripts.of(store), topic, timers, retries, nextJobs, System::nanoTime);
	}

	/**
	 * Completes through {@code store}: a test's fake, or Redis.
	 * @param nanoClock how long completions have waited for a ride
	 * ({@link System#nanoTime()}, or a test's clock)
	 */
	Acknowledgements(CompletionScripts store, String topic, ScheduledExecutorService timers, Executor retries,
			NextJobs nextJobs, LongSupplier nanoClock) {
		this.nanoClock = nanoClock;
		this.store = store;
		this.topic = topic;
		this.timers = timers;
		this.retries = retries;
		this.nextJobs = nextJobs;
	}

	/**
	 * Queues a finished job; {@code outcome} learns what Redis said, possibly on another
	 * worker's thread. May send the batch (and others' jobs with it) on the calling
	 * thread; never throws for a Redis failure, which leads to a retry instead.
	 */
	void complete(ClaimedJob job, PendingCompletion.Outcome outcome) {
		add(job, outcome);
		send();
	}

	/**
	 * Queues a finished job without sending: its lease is renewed from now on, so its
	 * worker may give its slot back before Redis answers ({@link #send()} then).
	 */
	void add(ClaimedJob job, PendingCompletion.Outcome outcome) {
		PendingCompletion pending = new PendingCompletion(job, outcome, this.nanoClock.getAsLong());
		this.unconfirmed.put(job, pending);
		if (this.nextJobs.mayClaimIn(job.bucket())) {
			this.claimsWaiting = true;
		}
		this.queue.add(pending);
	}

	/**
	 * Takes the completions queued for {@code bucket}, for the migrate call about to hand
	 * this consumer jobs of that bucket to carry (at most {@link #MAX_RIDING}), once the
	 * oldest has waited {@link #RIDE_AFTER}; none while a retry is scheduled, since Redis
	 * just failed them. The caller ends each with {@link #rode} or {@link #rideFailed};
	 * meanwhile they stay unconfirmed, their leases renewed.
	 */
	List<PendingCompletion> takeForRide(int bucket) {
		if (this.backingOff || !oldestWaitedForRide(bucket)) {
			return List.of();
		}
		List<PendingCompletion> taken = new ArrayList<>();
		for (PendingCompletion pending : this.queue) {
			// remove() is true for one taker only: the sender's poll and this never both
			// take a job.
			if (pending.job.bucket() == bucket && !pending.isAnswered() && this.queue.remove(pending)) {
				taken.add(pending);
				if (taken.size() == MAX_RIDING) {
					break;
				}
			}
		}
		return taken;
	}

	/** Whether a completion of {@code bucket} has waited {@link #RIDE_AFTER}. */
	private boolean oldestWaitedForRide(int bucket) {
		long now = this.nanoClock.getAsLong();
		for (PendingCompletion pending : this.queue) {
			if (pending.job.bucket() == bucket && now - pending.queuedNanos >= RIDE_AFTER.toNanos()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The migrate call that carried these answered for each, in order. Called on the
	 * migrator's thread, which must not wait for the listeners told of each outcome (the
	 * journal's writes to its database among them): they are told on a worker's thread,
	 * as for the consumer's own complete scripts.
	 */
	void rode(List<PendingCompletion> riding, List<Boolean> completed) {
		for (int i = 0; i < riding.size(); i++) {
			answer(riding.get(i), completed.get(i));
		}
		report(riding);
	}

	private void report(List<PendingCompletion> answered) {
		if (answered.isEmpty()) {
			return;
		}
		try {
			this.retries.execute(() -> answered.forEach(PendingCompletion::report));
		}
		catch (RejectedExecutionException ex) {
			answered.forEach(PendingCompletion::report); // closing: its workers are gone
		}
	}

	/**
	 * The migrate call that carried these got no usable reply: they are queued again and
	 * sent on their own (a second run of an end that landed answers that the claim is
	 * gone, which {@link PendingCompletion} then reports as such).
	 */
	void rideFailed(List<PendingCompletion> riding) {
		if (riding.isEmpty()) {
			return;
		}
		List<PendingCompletion> answered = new ArrayList<>();
		for (PendingCompletion pending : riding) {
			if (pending.isAnswered()) {
				answered.add(pending); // by a renewal that found the claim gone
			}
			else {
				pending.attemptFailed(true);
				this.queue.add(pending);
			}
		}
		report(answered);
		send();
	}

	/**
	 * Sends what is queued, at once when it may claim and otherwise within
	 * {@link #LINGER}, unless a batch is on its way (its sender takes these too) or a
	 * retry is scheduled; never throws for a Redis failure.
	 */
	void send() {
		if (!this.backingOff) {
			sendWhileQueued(false);
		}
	}

	/**
	 * Finished jobs whose completion Redis has not answered yet; their leases must be
	 * renewed.
	 */
	@Override
	public Collection<ClaimedJob> unconfirmed() {
		return Collections.unmodifiableSet(this.unconfirmed.keySet());
	}

	/**
	 * A renewal found the claim gone: the completion of this job, if still waiting, ends
	 * there. Called on a Lettuce thread; reported with the next batch.
	 */
	@Override
	public void claimLost(ClaimedJob job) {
		PendingCompletion pending = this.unconfirmed.get(job);
		if (pending != null) {
			answer(pending, false);
		}
	}

	/**
	 * Sends what is left, retrying, until Redis has answered for every finished job or
	 * {@code deadlineNanos} ({@link System#nanoTime()}) has passed, plus at most one
	 * command timeout for a batch on its way; returns the jobs still unanswered.
	 */
	List<ClaimedJob> flush(long deadlineNanos) {
		this.flushing = true;
		// The queue too: an answer a renewal or a late reply brought is
		// reported when drained.
		while ((!this.unconfirmed.isEmpty() || !this.queue.isEmpty()) && deadlineNanos - System.nanoTime() > 0) {
			retryNow();
			awaitChange(Math.min(deadlineNanos - System.nanoTime(), FIRST_RETRY_DELAY.toNanos()));
		}
		return List.copyOf(this.unconfirmed.keySet());
	}

	private void retryNow() {
		this.backingOff = false;
		sendWhileQueued(true);
	}

	/**
	 * Sends batches while jobs are queued; {@code now} sends the first at once, and later
	 * ones (jobs that finished while a batch was on its way) wait for {@link #LINGER}
	 * unless they may claim.
	 */
	private void sendWhileQueued(boolean now) {
		boolean atOnce = now;
		while (!this.backingOff && !this.queue.isEmpty()) {
			if (!atOnce && !this.claimsWaiting) {
				sendAfterLinger();
				return;
			}
			if (!this.sending.compareAndSet(false, true)) {
				return;
			}
			try {
				this.claimsWaiting = false;
				sendBatch();
			}
			finally {
				this.sending.set(false);
				signalChange();
			}
			atOnce = false;
		}
	}

	private void sendAfterLinger() {
		if (!this.lingering.compareAndSet(false, true)) {
			return; // a send is planned already, and takes these jobs too
		}
		try {
			this.timers.schedule(() -> {
				try {
					this.retries.execute(this::sendLingered);
				}
				catch (RejectedExecutionException ex) {
					this.lingering.set(false); // closing: flush() sends what is left
				}
			}, LINGER.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			this.lingering.set(false); // closing: flush() sends what is left
		}
	}

	private void sendLingered() {
		this.lingering.set(false);
		sendWhileQueued(true); // sends nothing while a retry is scheduled
	}

	private void sendBatch() {
		List<Call> calls = new ArrayList<>();
		drainByBucket().forEach((bucket, jobs) -> calls.add(send(bucket, jobs)));
		List<PendingCompletion> unanswered = new ArrayList<>();
		List<PendingCompletion> givenUp = new ArrayList<>();
		RuntimeException failure = null;
		for (Call call : calls) {
			RuntimeException callFailure = await(call);
			settleClaim(call, callFailure);
			failure = (callFailure != null) ? callFailure : failure;
			for (PendingCompletion pending : call.jobs()) {
				if (pending.isAnswered()) {
					pending.report();
				}
				else if (callFailure != null && !worthRetrying(callFailure)) {
					this.unconfirmed.remove(pending.job, pending);
					givenUp.add(pending);
				}
				else {
					pending.attemptFailed(callFailure instanceof RedeqUnavailableException);
					unanswered.add(pending);
				}
			}
		}
		if (!givenUp.isEmpty()) {
			logger.warn(
					"Consumer of topic '{}' gives up completing {} finished jobs ({}): {}; they stay IN_FLIGHT "
							+ "and run again when their leases expire",
					this.topic, givenUp.size(),
					JobOutcomes.ids(givenUp.stream().map((pending) -> pending.job).toList()), String.valueOf(failure));
		}
		if (unanswered.isEmpty()) {
			this.failuresInARow = 0;
			this.failures.recovered("Consumer of topic '{}' completes jobs again", this.topic);
			return;
		}
		this.queue.addAll(unanswered);
		this.failures.failed(
				"Consumer of topic '" + this.topic + "' could not store the completion of " + unanswered.size()
						+ " finished jobs; retrying until Redis answers, their leases renewed meanwhile",
				(failure != null) ? failure : new IllegalStateException("no answer"));
		scheduleRetry();
	}

	/**
	 * Takes the queue; reports jobs answered meanwhile, groups the rest per bucket. Jobs
	 * of a bucket where a hand-off is near stay queued to ride on it, unless they have
	 * waited {@link #RIDE_WAIT} (or closing flushes).
	 */
	private Map<Integer, List<PendingCompletion>> drainByBucket() {
		Map<Integer, List<PendingCompletion>> byBucket = new LinkedHashMap<>();
		List<PendingCompletion> waiting = new ArrayList<>();
		long now = this.nanoClock.getAsLong();
		PendingCompletion next;
		while ((next = this.queue.poll()) != null) {
			if (next.isAnswered()) {
				next.report(); // answered by a renewal, or by a reply that came late
			}
			else if (mayWaitForRide(next, now)) {
				waiting.add(next);
			}
			else {
				byBucket.computeIfAbsent(next.job.bucket(), (b) -> new ArrayList<>()).add(next);
			}
		}
		this.queue.addAll(waiting);
		return byBucket;
	}

	/**
	 * Whether a queued completion stays for the migrator's next call in its bucket: not
	 * once it has waited {@link #RIDE_WAIT}, nor while closing, nor where a complete
	 * script of its own would claim the next jobs with it (a backlog waits READY there).
	 */
	private boolean mayWaitForRide(PendingCompletion pending, long nowNanos) {
		int bucket = pending.job.bucket();
		return !this.flushing && nowNanos - pending.queuedNanos < RIDE_WAIT.toNanos()
				&& this.nextJobs.handOffNear(bucket) && !this.nextJobs.mayClaimIn(bucket);
	}

	private @Nullable RuntimeException await(Call call) {
		try {
			this.store.await(call.answered(), "complete " + call.jobs().size() + " jobs of " + this.topic);
			return null;
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	/**
	 * No reply (timeout, connection lost), or an error reply (READONLY during a failover,
	 * LOADING, OOM): Redis may answer later. Anything else (the Lettuce client shut down
	 * under us) will not change, and retrying would only hold close up.
	 */
	private static boolean worthRetrying(RuntimeException failure) {
		return failure instanceof RedeqUnavailableException || failure.getCause() instanceof RedisException;
	}

	/**
	 * Sends one bucket's completions; while the consumer has free slots and the bucket is
	 * known to hold READY jobs, the same script claims into them.
	 */
	private Call send(int bucket, List<PendingCompletion> jobs) {
		HandOffs.Offer claim = this.nextJobs.offerFor(bucket);
		AtomicReference<@Nullable ClaimResult> claimed = new AtomicReference<>();
		try {
			CompletionStage<CompletionReply> reply = this.store.completeAll(bucket,
					jobs.stream().map((pending) -> pending.job).toList(), (claim != null) ? claim.request() : null);
			// Recorded on the Lettuce thread as the reply arrives, before any later reply
			// on the connection (a renewal's) is read, so the lease keeper never takes
			// a job completed a moment ago for a lost one.
			return new Call(bucket, jobs, reply.thenAccept((answer) -> {
				for (int i = 0; i < answer.completed().size(); i++) {
					answer(jobs.get(i), answer.completed().get(i));
				}
				claimed.set(answer.claimed());
			}), claim, claimed);
		}
		catch (RuntimeException ex) {
			// no connection to send it on
			return new Call(bucket, jobs, CompletableFuture.failedFuture(ex), claim, claimed);
		}
	}

	/**
	 * Starts what the call claimed, on this worker's thread (never on Lettuce's: a job
	 * that arrives while closing is handed back with a round trip); a claim without a
	 * usable reply is handed back by the fetcher, as its own lost claims are.
	 */
	private void settleClaim(Call call, @Nullable RuntimeException failure) {
		if (call.claim() == null) {
			return;
		}
		ClaimResult claimed = call.claimed().get();
		if (failure == null && claimed != null) {
			call.claim().accept(claimed.jobs(), claimed.now() * 1000, this.nanoClock.getAsLong());
			this.nextJobs.claimed(call.bucket(), claimed);
		}
		else {
			call.claim().fail(failure);
		}
	}

	private void scheduleRetry() {
		this.failuresInARow++;
		long delay = Math.min(MAX_RETRY_DELAY.toMillis(),
				FIRST_RETRY_DELAY.toMillis() << Math.min(this.failuresInARow - 1, 10));
		this.backingOff = true;
		try {
			this.timers.schedule(() -> {
				try {
					this.retries.execute(this::retryNow);
				}
				catch (RejectedExecutionException ex) {
					this.backingOff = false; // closing: flush() sends what is left
				}
			}, delay, TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			this.backingOff = false; // closing: flush() sends what is left
		}
	}

	/** The first answer wins: a late reply to an earlier attempt beats its retry's. */
	private void answer(PendingCompletion pending, boolean completed) {
		if (pending.answer(completed)) {
			this.unconfirmed.remove(pending.job, pending);
			signalChange();
		}
	}

	private void awaitChange(long nanos) {
		if (nanos <= 0) {
			return;
		}
		this.lock.lock();
		try {
			this.changed.awaitNanos(nanos);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.lock.unlock();
		}
	}

	private void signalChange() {
		this.lock.lock();
		try {
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	private record Call(int bucket, List<PendingCompletion> jobs, CompletionStage<Void> answered,
			HandOffs.@Nullable Offer claim, AtomicReference<@Nullable ClaimResult> claimed) {
	}

	/**
	 * The consumer's side of a completion that claims: its free slots for a bucket, and
	 * what the claim left there.
	 */
	interface NextJobs {

		/** Never claims: completions only. */
		NextJobs NONE = new NextJobs() {
			@Override
			public boolean mayClaimIn(int bucket) {
				return false;
			}

			@Override
			public HandOffs.@Nullable Offer offerFor(int bucket) {
				return null;
			}

			@Override
			public boolean handOffNear(int bucket) {
				return false;
			}

			@Override
			public void claimed(int bucket, ClaimResult result) {
			}
		};

		/**
		 * Whether a completion in {@code bucket} might claim there now: the bucket is
		 * known to hold READY jobs and the consumer may claim. Takes nothing.
		 */
		boolean mayClaimIn(int bucket);

		/**
		 * The consumer's free slots, taken for a claim in {@code bucket}, or {@code null}
		 * when it has none or the bucket is not known to hold READY jobs.
		 */
		HandOffs.@Nullable Offer offerFor(int bucket);

		/**
		 * Whether the migrator hands this consumer jobs of {@code bucket} these days, so
		 * that its next call there, which may carry the bucket's completions, is near.
		 */
		boolean handOffNear(int bucket);

		/**
		 * A claim with a completion took {@code result}'s jobs and left its remaining
		 * READY jobs in the bucket.
		 */
		void claimed(int bucket, ClaimResult result);

	}

}
