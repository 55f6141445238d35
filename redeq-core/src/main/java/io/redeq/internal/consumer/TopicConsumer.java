package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.JobHandler;
import io.redeq.RedeqException;
import io.redeq.RedeqOptions;
import io.redeq.Subscription;
import io.redeq.internal.JobEvents;
import io.redeq.internal.JobIds;
import io.redeq.internal.LayoutHold;
import io.redeq.internal.LogOnce;
import io.redeq.internal.control.StartLimiter;
import io.redeq.internal.redis.ClaimResult;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.LayoutChangedException;
import io.redeq.internal.redis.SlotOffer;

/**
 * A subscription: one fetcher thread claims READY jobs of a topic only into free worker
 * slots (no local buffer, so nothing waits in memory when the instance dies), the topic's
 * best-scored jobs whichever buckets hold them, workers run the handler under a lease
 * that is renewed every third of its length, and each outcome is one script.
 *
 * <p>
 * An idle fetcher waits on Redis for a wake-up signal ({@link WorkSignals}); a handler
 * running past its timeout is interrupted and its slot given back
 * ({@link HandlerInvocation}); {@link #close()} stops fetching at once, lets running
 * handlers finish within the shutdown timeout and hands every job no thread runs any more
 * back to READY.
 *
 * <p>
 * One class because the fetch loop, the three ways of claiming (fetcher, hand-off,
 * completion) share its slots and claim gates, with the choice among buckets that keeps
 * priority order across them and the graceful close; what close gives back to READY is
 * {@link HandBacks}', what is known of each bucket's head {@link BucketHints}', and what
 * it needs from Redis {@link ConsumerStore}'s. The claim round (plan and claims) is the
 * next part to move out.
 */
public final class TopicConsumer implements Subscription {

	/**
	 * How long close waits, after the shutdown timeout, for interrupted handlers to end.
	 * A handler that honours interruption ends far sooner; one that does not keeps its
	 * job IN_FLIGHT rather than let another instance start it while it still runs.
	 */
	static final Duration INTERRUPTED_HANDLER_GRACE = Duration.ofSeconds(1);

	/**
	 * How far, in ready score (ms of due time), a claim may go past the best head of
	 * another bucket of the topic: jobs of one priority due that close together may start
	 * in either order, and a claim takes more jobs at once.
	 */
	static final double ORDER_SLACK = 4;

	/**
	 * Most scores read per bucket to plan a round; a round that wants more claims the
	 * rest in the next one.
	 */
	static final int MAX_SCORES_READ = 128;

	/** How often a fetcher of a paused topic looks whether it was resumed. */
	private static final Duration PAUSED_CHECK = Duration.ofMillis(100);

	private static final Logger logger = LoggerFactory.getLogger(TopicConsumer.class);

	private final ConsumerSettings settings;

	private final ConsumerStore store;

	private final RedeqOptions options;

	private final Acknowledgements acknowledgements;

	private final JobEvents events;

	private final ScheduledExecutorService timers;

	private final Runnable onClosed;

	private final WorkSignals signals;

	private final Workers workers;

	private final HandlerInvocation invocation;

	private final LeaseKeeper leases;

	private final Thread fetcher;

	private final String tokenPrefix;

	private final AtomicLong tokens = new AtomicLong();

	private final AtomicBoolean open = new AtomicBoolean(true);

	private final LogOnce fetchFailures = new LogOnce(logger);

	/** Said when frozen buckets refuse the fetcher; its thread only. */
	private final LayoutHold layoutHold;

	private volatile boolean fetching = true;

	private final LostClaims lostClaims;

	/** Whether a topic is paused: this instance's copy, refreshed in the background. */
	private final Predicate<String> pauses;

	/**
	 * {@link System#nanoTime()}, or a test's clock: how long what a claim learned is
	 * trusted, when a lost claim is handed back again, when a job handed over early may
	 * start.
	 */
	private final LongSupplier nanoClock;

	private final @Nullable StartLimiter limiter;

	private final HandOffs handOffs;

	/** One claim of this subscription in flight per bucket: jobs start in claim order. */
	private final ClaimGates claimGates;

	private final HandBacks handBacks;

	/**
	 * How long a claim's word that READY jobs are left in a bucket is trusted: another
	 * instance may have taken them since.
	 */
	private static final long READY_KNOWN_NANOS = Duration.ofSeconds(1).toNanos();

	/**
	 * Per bucket, when (on the nano clock) a claim of this consumer last left READY jobs
	 * of the topic there, or 0 when its last claim emptied it: where a completion claims
	 * the next jobs in the same script.
	 */
	private final AtomicLongArray readyKnown;

	/**
	 * Per bucket, when (on the nano clock) the migrator last answered an offer of this
	 * consumer there, 0 never: while it does so, its next call there is near, and the
	 * bucket's completions wait to ride on it.
	 */
	private final AtomicLongArray handedOverIn;

	/**
	 * Held while a hand-off starts jobs and while closing stops fetching: once close
	 * stopped fetching, no job starts behind its back.
	 */
	private final Object starting = new Object();

	public TopicConsumer(ConsumerSettings settings, JobHandler<Object> handler, ConsumerContext context,
			Runnable onClosed) {
		this(settings, handler, context, ConsumerStore.of(context.store(), context.options()),
				context.pauses()::isPaused, System::nanoTime, onClosed);
	}

	/**
	 * A subscription on the given ports: Redis, or a test's fakes; {@code context}'s
	 * store and pauses are not used.
	 * @param pauses whether a topic is paused
	 * @param nanoClock {@link System#nanoTime()}, or a test's clock
	 */
	TopicConsumer(ConsumerSettings settings, JobHandler<Object> handler, ConsumerContext context, ConsumerStore store,
			Predicate<String> pauses, LongSupplier nanoClock, Runnable onClosed) {
		this.settings = settings;
		this.layoutHold = new LayoutHold(logger, "Consumer of topic '" + settings.topic() + "'", "claims nothing");
		this.store = store;
		this.options = context.options();
		this.events = context.events();
		this.timers = context.timers();
		this.onClosed = onClosed;
		this.nanoClock = nanoClock;
		this.signals = new WorkSignals(store.signals(settings.topic()), this.options, settings.topic(),
				context.localSignals());
		this.workers = new Workers(settings.topic(), settings.concurrency(),
				this.options.prefetchFor(settings.concurrency()), nanoClock);
		this.readyKnown = new AtomicLongArray(this.options.buckets());
		this.handedOverIn = new AtomicLongArray(this.options.buckets());
		this.claimGates = new ClaimGates(this.options.buckets());
		this.handBacks = new HandBacks(store, settings, this.options.shutdownTimeout());
		this.acknowledgements = new Acknowledgements(store, settings.topic(), this.timers, this.workers::execute,
				new NextJobsAfterCompletion(), nanoClock);
		JobOutcomes outcomes = new JobOutcomes(store, settings, context.listeners(), this.events, context.wakeUps(),
				this.acknowledgements);
		this.invocation = new HandlerInvocation(settings, handler, context.codec(), outcomes, this.timers, this.workers,
				context.observations());
		// Claim tokens are used once (a bucket remembers them for a while to recognise a
		// claim Lettuce sends again): unique per subscription and per start, even under
		// an instance id that a restarted instance or another subscription shares.
		this.tokenPrefix = context.instanceId() + ":" + JobIds.next().substring(0, 8) + ":";
		this.leases = new LeaseKeeper(store, settings.lease(), this.workers.running(), this.acknowledgements);
		this.lostClaims = new LostClaims(store, settings.topic(), settings.lease(), nanoClock);
		this.pauses = pauses;
		this.limiter = (settings.rateLimit() != null) ? store.startLimiter(settings.topic(), settings.rateLimit())
				: null;
		this.fetcher = new Thread(this::fetchLoop, "redeq-fetch-" + settings.topic());
		this.fetcher.setDaemon(true);
		this.handOffs = context.handOffs();
	}

	public void start() {
		this.leases.start(this.timers);
		this.fetcher.start();
		this.handOffs.join(this);
	}

	@Override
	public String topic() {
		return this.settings.topic();
	}

	/** How many of its jobs run at once at most. */
	public int concurrency() {
		return this.settings.concurrency();
	}

	@Override
	public boolean isRunning() {
		return this.fetching;
	}

	// ---- fetching ---------------------------------------------------------------------

	private void fetchLoop() {
		while (this.fetching) {
			try {
				if (this.pauses.test(this.settings.topic())) {
					awaitResume();
					continue;
				}
				FreeSlots free = this.workers.takeFreeSlots();
				long limitedForMillis;
				try {
					limitedForMillis = fetchInto(free);
				}
				finally {
					// Only the slots no job took: a claim that failed after jobs started
					// must not hand back the slots those jobs hold.
					free.releaseUnused();
				}
				if (limitedForMillis > 0) {
					// The rate limit's window is full: its jobs wait READY,
					// no attempt used.
					this.signals.pause(Duration.ofMillis(limitedForMillis));
				}
				else if (!free.anyHandedOver() && this.fetching) {
					this.signals.awaitWork();
				}
				this.fetchFailures.recovered("Consumer of topic '{}' fetches again", this.settings.topic());
			}
			catch (InterruptedException ex) {
				break;
			}
			catch (LayoutChangedException ex) {
				// Frozen buckets while the bucket count changes: nothing was claimed
				// there. The engine follows the recorded layout; the consumer holds.
				if (!this.fetching) {
					break;
				}
				this.layoutHold.refused(ex);
				this.signals.pause(LayoutHold.PAUSE);
			}
			catch (RuntimeException ex) {
				if (!this.fetching) {
					break;
				}
				this.fetchFailures.failed("Consumer of topic '" + this.settings.topic()
						+ "' cannot fetch jobs; retrying every second until Redis answers", ex);
				this.signals.pause(Duration.ofSeconds(1));
			}
		}
	}

	/**
	 * Waits while the topic is paused, checking this instance's copy of the paused topics
	 * as often as it is refreshed; cut short by close. Signals that arrived meanwhile
	 * were taken without a claim, so once resumed the fetcher looks at every bucket.
	 */
	private void awaitResume() {
		while (this.fetching && this.pauses.test(this.settings.topic())) {
			this.signals.pause(PAUSED_CHECK);
		}
		this.signals.lookEverywhere();
	}

	/**
	 * Claims jobs from the hinted buckets into the free slots and starts them, round
	 * after round while slots are free and buckets hinted; each started job takes its
	 * slot at once, so a claim that throws later in the round leaves the count right.
	 * @return 0, or how long to wait when the rate limit stopped the round
	 */
	private long fetchInto(FreeSlots free) throws InterruptedException {
		if (this.lostClaims.anyDue()) {
			this.lostClaims.handBack().forEach(this.signals::moreHere);
		}
		while (free.left() > 0 && this.fetching && !this.pauses.test(this.settings.topic())) {
			List<Integer> candidates = this.signals.takeHinted();
			if (candidates.isEmpty()) {
				return 0;
			}
			long limitedForMillis = claimRound(free, candidates);
			if (limitedForMillis > 0) {
				return limitedForMillis;
			}
		}
		return 0;
	}

	/**
	 * One round: takes the best-scored READY jobs of the topic among the hinted buckets
	 * into the free slots, so priority and due order hold across buckets, not only within
	 * one. With one bucket hinted it claims there at once (every other bucket is believed
	 * to hold no READY job); with several whose heads are all known, from the one with
	 * the lowest head ({@link #planFromKnownHeads}); else it reads the lowest scores of
	 * each (one pipelined read) and claims from each bucket what the best of the topic
	 * take, all claims pipelined. The jobs start in score order. A rate-limited topic
	 * asks its limiter for permits first and claims no more than granted.
	 * @return 0, or how long to wait when the rate limit stopped the round
	 */
	private long claimRound(FreeSlots free, List<Integer> candidates) throws InterruptedException {
		BucketHints heads = this.signals.heads();
		int wanted = free.left();
		StartLimiter.Grant grant = null;
		if (this.limiter != null) {
			grant = this.limiter.acquire(wanted, this.tokenPrefix + this.tokens.incrementAndGet());
			if (grant.permits() == 0) {
				candidates.forEach(heads::requeue);
				return grant.retryAfterMillis();
			}
			wanted = grant.permits();
		}
		int n = candidates.size();
		boolean[] gated = new boolean[n];
		try {
			// Every candidate's gate before its head is read: a completion's claim there
			// meanwhile would leave the plan behind.
			for (int i = 0; i < n; i++) {
				gated[i] = enterGate(candidates.get(i));
			}
			if (!this.fetching) {
				if (grant != null) {
					this.limiter.release(grant, 0);
				}
				return 0; // closed while waiting for a gate: claim nothing more
			}
			long[] signalsBefore = new long[n];
			for (int i = 0; i < n; i++) {
				signalsBefore[i] = heads.signals(candidates.get(i));
			}
			int[] counts = new int[n];
			double[] bounds = new double[n];
			Arrays.fill(bounds, Double.POSITIVE_INFINITY);
			double[] known = (n == 1) ? null : heads.trustedHeads(candidates);
			try {
				if (n == 1) {
					counts[0] = wanted;
				}
				else if (known != null) {
					planFromKnownHeads(known, wanted, counts, bounds);
					for (int i = 0; i < n; i++) {
						if (counts[i] == 0) {
							heads.requeue(candidates.get(i));
						}
					}
				}
				else {
					counts = planFromHeads(candidates, signalsBefore, wanted);
				}
			}
			catch (RuntimeException ex) {
				candidates.forEach(heads::requeue);
				if (grant != null) {
					this.limiter.release(grant, 0);
				}
				throw ex;
			}
			claimAndStart(free, candidates, counts, bounds, signalsBefore, grant);
			return 0;
		}
		finally {
			for (int i = 0; i < n; i++) {
				if (gated[i]) {
					this.claimGates.leave(candidates.get(i));
				}
			}
		}
	}

	/**
	 * Plans a round from the heads already known (a read or a claim found each, and no
	 * signal came since): every slot goes to the bucket with the lowest head, whose claim
	 * takes only jobs within {@link #ORDER_SLACK} of the next best head. No read: a
	 * backlog drained over several buckets costs one claim per round. A head is a lower
	 * bound, so the claim may come back short; the next round then knows more.
	 */
	private static void planFromKnownHeads(double[] known, int wanted, int[] counts, double[] bounds) {
		int best = 0;
		for (int i = 1; i < known.length; i++) {
			if (known[i] < known[best]) {
				best = i;
			}
		}
		double next = Double.POSITIVE_INFINITY;
		for (int i = 0; i < known.length; i++) {
			if (i != best) {
				next = Math.min(next, known[i]);
			}
		}
		counts[best] = wanted;
		bounds[best] = next + ORDER_SLACK;
	}

	/**
	 * Reads the lowest scores of each candidate bucket and plans how many jobs to claim
	 * from each ({@link #plan}); the buckets the round does not claim from keep the head
	 * read. A bucket whose read failed is left out of this round and stays hinted, with
	 * its head unknown: one broken bucket does not stop the others. When every read
	 * failed, the round fails.
	 */
	private int[] planFromHeads(List<Integer> candidates, long[] signalsBefore, int wanted) {
		int reading = Math.min(wanted, MAX_SCORES_READ);
		String topic = this.settings.topic();
		List<CompletionStage<double[]>> replies = this.store.readyScores(topic, candidates, reading);
		double[][] scores = new double[candidates.size()][];
		boolean[] failed = new boolean[scores.length];
		RuntimeException failure = null;
		for (int i = 0; i < scores.length; i++) {
			try {
				scores[i] = this.store.await(replies.get(i), "read the ready jobs of " + topic);
			}
			catch (RuntimeException ex) {
				failure = (failure != null) ? failure : ex;
				failed[i] = true;
				scores[i] = new double[0];
			}
		}
		if (failure != null && Arrays.stream(scores).allMatch((read) -> read.length == 0)) {
			throw failure;
		}
		int[] counts = plan(scores, reading, wanted, ORDER_SLACK);
		BucketHints heads = this.signals.heads();
		for (int i = 0; i < counts.length; i++) {
			if (failed[i]) {
				heads.add(candidates.get(i));
			}
			else if (counts[i] == 0) {
				double head = (scores[i].length > 0) ? scores[i][0] : Double.POSITIVE_INFINITY;
				heads.learned(candidates.get(i), head, signalsBefore[i]);
			}
		}
		return counts;
	}

	/**
	 * How many jobs to claim from each bucket so that the round takes the topic's
	 * {@code wanted} best-scored jobs. It stays with one bucket while its next job is
	 * within {@code slack} of the best head elsewhere: fewer buckets per round, and jobs
	 * that close cannot be told apart by due time anyway. A bucket whose read was cut at
	 * {@code read} scores may hold more: the plan stops where it runs out, since what
	 * lies beyond is unknown.
	 * @param scores per bucket its lowest ready scores, lowest first
	 * @param read how many scores were asked of each bucket
	 * @param wanted the free slots
	 * @param slack how far past the best head elsewhere a bucket may go on
	 * @return per bucket how many to claim
	 */
	static int[] plan(double[][] scores, int read, int wanted, double slack) {
		int[] taken = new int[scores.length];
		int total = 0;
		while (total < wanted) {
			int best = -1;
			double bestScore = Double.POSITIVE_INFINITY;
			double otherScore = Double.POSITIVE_INFINITY;
			for (int i = 0; i < scores.length; i++) {
				if (taken[i] < scores[i].length) {
					double score = scores[i][taken[i]];
					if (best < 0 || score < bestScore) {
						otherScore = Math.min(otherScore, bestScore);
						best = i;
						bestScore = score;
					}
					else {
						otherScore = Math.min(otherScore, score);
					}
				}
			}
			if (best < 0) {
				break;
			}
			do {
				taken[best]++;
				total++;
			}
			while (total < wanted && taken[best] < scores[best].length
					&& scores[best][taken[best]] <= otherScore + slack);
			if (taken[best] == read) {
				break; // more may wait there, scored beyond what was read
			}
		}
		return taken;
	}

	/**
	 * Sends the planned claims, pipelined, and starts what they took in score order; the
	 * jobs of a claim that got no reply are handed back later ({@link LostClaims}), the
	 * others start all the same before the failure is thrown.
	 */
	private void claimAndStart(FreeSlots free, List<Integer> candidates, int[] counts, double[] bounds,
			long[] signalsBefore, StartLimiter.@Nullable Grant grant) {
		String topic = this.settings.topic();
		int n = candidates.size();
		String[] tokens = new String[n];
		List<@Nullable CompletionStage<ClaimResult>> replies = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			CompletionStage<ClaimResult> reply = null;
			if (counts[i] > 0) {
				tokens[i] = this.tokenPrefix + this.tokens.incrementAndGet();
				try {
					reply = this.store.claim(candidates.get(i), topic, counts[i], this.settings.lease().toMillis(),
							tokens[i], this.settings.maxAttempts(), bounds[i]);
				}
				catch (RuntimeException ex) {
					reply = CompletableFuture.failedFuture(ex);
				}
			}
			replies.add(reply);
		}
		List<ClaimedJob> jobs = new ArrayList<>();
		long redisNow = 0;
		RedeqException failure = null;
		LayoutChangedException refused = null;
		ClaimResult[] results = new ClaimResult[n];
		for (int i = 0; i < n; i++) {
			CompletionStage<ClaimResult> reply = replies.get(i);
			if (reply == null) {
				continue;
			}
			int bucket = candidates.get(i);
			try {
				results[i] = this.store.await(reply, "claim jobs of topic " + topic);
			}
			catch (LayoutChangedException ex) {
				// A frozen bucket took nothing: not a failure, the fetcher holds.
				refused = ex;
				continue;
			}
			catch (RedeqException ex) {
				// The permits stay used: the claim may have taken jobs before its reply
				// was lost, and the limit must hold for those.
				this.lostClaims.failed(bucket, tokens[i], ex);
				failure = (failure != null) ? failure : ex;
				continue;
			}
			this.layoutHold.answered();
			jobs.addAll(results[i].jobs());
			redisNow = Math.max(redisNow, results[i].now());
			noteReady(bucket, results[i].remaining());
		}
		if (grant != null) {
			this.limiter.release(grant, jobs.size());
		}
		if (n > 1) {
			jobs.sort(Comparator.comparingDouble(ClaimedJob::readyScore));
		}
		for (ClaimedJob job : jobs) {
			if (start(job, redisNow)) {
				free.handOverOne();
			}
		}
		for (int i = 0; i < n; i++) {
			if (results[i] != null) {
				List<ClaimedJob> claimed = results[i].jobs();
				double atLeast = claimed.isEmpty()
						? ((bounds[i] == Double.POSITIVE_INFINITY) ? Double.NEGATIVE_INFINITY : bounds[i])
						: claimed.get(claimed.size() - 1).readyScore();
				this.signals.claimed(candidates.get(i), signalsBefore[i], results[i].remaining(), atLeast,
						free.left() == 0);
			}
		}
		if (failure != null) {
			throw failure;
		}
		if (refused != null) {
			throw refused;
		}
	}

	/**
	 * Waits for the bucket's claim gate: a completion's or a hand-off's claim in flight
	 * there is answered or fails within a command timeout. Should it not be (a bug), the
	 * fetcher claims anyway: the order of two jobs matters less than a stalled consumer.
	 */
	private boolean enterGate(int bucket) throws InterruptedException {
		Duration wait = this.options.commandTimeout().plusSeconds(1);
		if (this.claimGates.enter(bucket, wait)) {
			return true;
		}
		logger.warn("Consumer of topic '{}' waited {} for another claim on bucket {} to settle; claiming anyway",
				this.settings.topic(), wait, bucket);
		return false;
	}

	private boolean start(ClaimedJob job, long redisNow) {
		if (!this.fetching || !this.workers.start(job, this.invocation::run)) {
			this.handBacks.unstarted(job);
			return false;
		}
		this.events.started(job.topic(), Duration.ofMillis(Math.max(0, redisNow - job.dueAt())));
		return true;
	}

	// ---- hand-off from this engine's migrator (HandOffs) ------------------------------

	/**
	 * Offers the free worker slots, taken until each offer is settled, to the migrator,
	 * split as evenly as they go over the {@code buckets} it is about to migrate (at
	 * least one slot per offer, so fewer offers than buckets when slots are few); nothing
	 * while closing, paused, rate-limited (the limiter grants starts per claim) or with a
	 * lost claim to hand back first, nothing on a bucket where another claim of this
	 * subscription is in flight ({@link ClaimGates}), and nothing on a bucket while
	 * another bucket of the topic is believed to hold READY jobs (they come first).
	 * Behind on a backlog, an offer still fills its slots: where jobs wait READY the
	 * script claims them, oldest first, with the due ones. Offers look
	 * {@link HandOffs#LOOK_AHEAD_MILLIS} ahead while the handlers are quick and at least
	 * half the open slots are free ({@link Workers#roomForEarlyJobs}), and only
	 * {@link HandOffs#LEAD_MILLIS} otherwise: slots held by jobs not yet due must not
	 * leave due ones waiting READY.
	 * @return per bucket, in the order given, this consumer's offer or {@code null}
	 */
	List<HandOffs.@Nullable Offer> offerSlots(int[] buckets) {
		List<HandOffs.@Nullable Offer> offers = new ArrayList<>(buckets.length);
		boolean[] gated = new boolean[buckets.length];
		int open = 0;
		if (mayClaimElsewhere()) {
			for (int i = 0; i < buckets.length; i++) {
				// Not while another bucket is believed to hold READY jobs: those come
				// before the jobs this migrate makes due, and the fetcher claims them.
				gated[i] = this.signals.heads().bestHeadBesides(buckets[i]) == Double.POSITIVE_INFINITY
						&& this.claimGates.tryEnter(buckets[i]);
				open += (gated[i]) ? 1 : 0;
			}
		}
		int slots = (open > 0) ? this.workers.takeFreeSlotsNow() : 0;
		long lead = this.workers.roomForEarlyJobs(slots) ? HandOffs.LOOK_AHEAD_MILLIS : HandOffs.LEAD_MILLIS;
		int nth = 0;
		for (int i = 0; i < buckets.length; i++) {
			int share = 0;
			if (gated[i]) {
				share = slots / open + ((nth < slots % open) ? 1 : 0);
				nth++;
				if (share == 0) {
					this.claimGates.leave(buckets[i]);
				}
			}
			offers.add(
					(share > 0) ? offer(buckets[i], share, lead, this.acknowledgements.takeForRide(buckets[i])) : null);
		}
		return offers;
	}

	/**
	 * Whether a claim outside the fetcher (the migrator's hand-off, or a completion's)
	 * may take free slots: not while closing, paused, rate-limited (the limiter grants
	 * starts per claim of the fetcher) or with a lost claim to hand back first.
	 */
	private boolean mayClaimElsewhere() {
		return this.fetching && this.limiter == null && !this.lostClaims.anyNotHandedBack()
				&& !this.pauses.test(this.settings.topic());
	}

	private void noteReady(int bucket, long remaining) {
		this.readyKnown.set(bucket, (remaining > 0) ? Math.max(1, this.nanoClock.getAsLong()) : 0);
	}

	private boolean readyKnownIn(int bucket) {
		long seen = this.readyKnown.get(bucket);
		return seen != 0 && this.nanoClock.getAsLong() - seen < READY_KNOWN_NANOS;
	}

	/**
	 * An offer of slots on a bucket whose claim gate the caller holds; a migrate may hand
	 * it jobs due within {@code leadMillis} (0: only due ones).
	 */
	private HandOffs.Offer offer(int bucket, int slots, long leadMillis, List<PendingCompletion> riding) {
		return offer(bucket, slots, leadMillis, riding, Double.POSITIVE_INFINITY);
	}

	/** As above, taking READY jobs scored at most {@code maxScore} only. */
	private HandOffs.Offer offer(int bucket, int slots, long leadMillis, List<PendingCompletion> riding,
			double maxScore) {
		return new HandOffs.Offer(this, bucket,
				new SlotOffer(this.settings.topic(), slots, this.settings.lease().toMillis(),
						this.tokenPrefix + this.tokens.incrementAndGet(), this.settings.maxAttempts(), leadMillis,
						maxScore),
				riding);
	}

	/**
	 * The migrator's call on {@code bucket} answered this consumer's offer, and for the
	 * completions it carried: its next call there is near.
	 */
	void completionsRode(int bucket, List<PendingCompletion> riding, List<Boolean> completed) {
		this.handedOverIn.set(bucket, Math.max(1, this.nanoClock.getAsLong()));
		this.acknowledgements.rode(riding, completed);
	}

	/**
	 * A migrate call that carried completions got no usable reply: they go on their own.
	 */
	void completionsDidNotRide(List<PendingCompletion> riding) {
		this.acknowledgements.rideFailed(riding);
	}

	/**
	 * Starts the jobs a migrate put IN_FLIGHT for this consumer, on the migrator's
	 * thread; the offer's slots they do not take come back. A job handed over before its
	 * due time starts once Redis's clock has surely reached that time
	 * ({@link RedisClockBound}, which this reply's script time and arrival tighten),
	 * never before it. A job that arrives while closing goes back to READY as a claimed
	 * job would.
	 */
	void handedOver(SlotOffer offer, int bucket, List<ClaimedJob> jobs, long redisNowMicros, long repliedNanos) {
		List<ClaimedJob> refused = new ArrayList<>();
		int started = 0;
		long redisNow = redisNowMicros / 1000;
		RedisClockBound redisClock = this.handOffs.redisClock(bucket);
		redisClock.replied(redisNowMicros, repliedNanos);
		synchronized (this.starting) {
			for (ClaimedJob job : jobs) {
				long earlyNanos = (job.dueAt() * 1000 > redisNowMicros)
						? redisClock.nanosUntil(job.dueAt() * 1000, this.nanoClock.getAsLong()) : 0;
				if (this.fetching && this.workers.start(job, this.invocation::run, earlyNanos, this.timers,
						this.handBacks::unstarted)) {
					this.events.started(job.topic(), Duration.ofMillis(Math.max(0, redisNow - job.dueAt())));
					started++;
				}
				else {
					refused.add(job);
				}
			}
		}
		this.claimGates.leave(bucket);
		this.workers.giveBackSlots(offer.slots() - started);
		refused.forEach(this.handBacks::unstarted);
	}

	/**
	 * A migrate that held this consumer's offer got no usable reply: its slots come back,
	 * and the fetcher hands back whatever is held under the offer's token before its next
	 * claim (as for its own lost claims).
	 */
	void handOffFailed(SlotOffer offer, int bucket, @Nullable RuntimeException failure) {
		this.lostClaims.unanswered(bucket, offer.token());
		this.claimGates.leave(bucket);
		this.workers.giveBackSlots(offer.slots());
		this.signals.moreHere(bucket);
		logger.debug("Hand-off to the consumer of topic '{}' on bucket {} got no reply: {}", this.settings.topic(),
				bucket, String.valueOf(failure));
	}

	// ---- closing ----------------------------------------------------------------------

	/**
	 * Stops fetching at once, lets running handlers finish within the shutdown timeout,
	 * then takes the rest from their workers: a job no thread runs any more goes back to
	 * READY at once, a job whose handler ignored its interrupt stays IN_FLIGHT until its
	 * lease (no longer renewed) expires, so no other instance starts it while this one
	 * still runs it. Finished jobs get until the shutdown timeout (one command timeout at
	 * least) for Redis to confirm their completion; the jobs of claims whose reply was
	 * lost go back to READY too ({@link LostClaims#handBackAll()}). Every wait is
	 * bounded: close takes at most about the shutdown timeout, plus
	 * {@link #INTERRUPTED_HANDLER_GRACE}, plus a few command timeouts when Redis does not
	 * answer.
	 */
	@Override
	public void close() {
		if (!this.open.compareAndSet(true, false)) {
			return;
		}
		long deadline = System.nanoTime() + this.options.shutdownTimeout().toNanos();
		stopFetching();
		// Claimed but not begun (prefetched): back to READY now, not after the
		// running handlers finish.
		List<ClaimedJob> waiting = this.workers.takeBackWaiting();
		List<ClaimedJob> waitingNotHandedBack = this.handBacks.waiting(waiting);
		this.workers.awaitIdle(deadline);
		Workers.Unfinished unfinished = this.workers.stop(INTERRUPTED_HANDLER_GRACE);
		List<ClaimedJob> notHandedBack = this.handBacks.unfinished(unfinished);
		// A job that finished at the deadline still gets one command's time to complete.
		long completionTime = Math.max(deadline - System.nanoTime(), this.options.commandTimeout().toNanos());
		List<ClaimedJob> uncompleted = this.acknowledgements.flush(System.nanoTime() + completionTime);
		long lostHandedBack = this.lostClaims.handBackAll();
		this.leases.stop();
		this.workers.shutdown();
		this.onClosed.run();
		if (!uncompleted.isEmpty()) {
			logger.warn(
					"Consumer of topic '{}' closed before Redis confirmed the completion of {} finished jobs ({}); "
							+ "they stay IN_FLIGHT and run again when their leases expire",
					this.settings.topic(), uncompleted.size(), JobOutcomes.ids(uncompleted));
		}
		long handedBack = waiting.size() - waitingNotHandedBack.size() + unfinished.neverStarted().size()
				+ unfinished.interrupted().size() - notHandedBack.size() + lostHandedBack;
		int leftInFlight = unfinished.stillRunning().size() + waitingNotHandedBack.size() + notHandedBack.size()
				+ uncompleted.size();
		if (handedBack > 0 || leftInFlight > 0) {
			logger.info("Consumer of topic '{}' stopped; {} unfinished jobs handed back to READY, {} left IN_FLIGHT "
					+ "until their leases expire", this.settings.topic(), handedBack, leftInFlight);
		}
	}

	private void stopFetching() {
		this.handOffs.leave(this);
		synchronized (this.starting) {
			this.fetching = false;
		}
		this.signals.close();
		this.workers.wakeFetcher();
		try {
			this.fetcher.join(this.options.commandTimeout().toMillis() + 1000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * A completion claims in the same script into the slots free when it is sent, in a
	 * bucket whose last claim left READY jobs: a consumer draining a backlog then runs
	 * one script per round instead of a claim and a completion. It claims only jobs
	 * scored within {@link #ORDER_SLACK} of the best head known elsewhere, and nothing
	 * while another bucket's head is unknown: the fetcher compares the buckets then.
	 */
	private final class NextJobsAfterCompletion implements Acknowledgements.NextJobs {

		/**
		 * Per bucket, the signals it had when its last completion's claim was sent (one
		 * at a time per bucket: the claim gate).
		 */
		private final AtomicLongArray signalsBefore = new AtomicLongArray(TopicConsumer.this.options.buckets());

		/** Per bucket, the score bound of its last completion's claim, as raw bits. */
		private final AtomicLongArray bounds = new AtomicLongArray(TopicConsumer.this.options.buckets());

		@Override
		public boolean mayClaimIn(int bucket) {
			return readyKnownIn(bucket) && mayClaimElsewhere();
		}

		@Override
		public HandOffs.@Nullable Offer offerFor(int bucket) {
			if (!readyKnownIn(bucket) || !mayClaimElsewhere()) {
				return null;
			}
			BucketHints heads = TopicConsumer.this.signals.heads();
			double elsewhere = heads.bestHeadBesides(bucket);
			if (elsewhere == Double.NEGATIVE_INFINITY || !TopicConsumer.this.claimGates.tryEnter(bucket)) {
				return null;
			}
			int slots = TopicConsumer.this.workers.takeFreeSlotsNow();
			if (slots == 0) {
				TopicConsumer.this.claimGates.leave(bucket);
				return null;
			}
			double bound = elsewhere + ORDER_SLACK;
			this.signalsBefore.set(bucket, heads.signals(bucket));
			this.bounds.set(bucket, Double.doubleToRawLongBits(bound));
			// The completions this claim goes with are in its own script already.
			return offer(bucket, slots, 0, List.of(), bound);
		}

		@Override
		public boolean handOffNear(int bucket) {
			long seen = TopicConsumer.this.handedOverIn.get(bucket);
			return seen != 0 && TopicConsumer.this.nanoClock.getAsLong() - seen < Acknowledgements.RIDE_WAIT.toNanos()
					&& mayClaimElsewhere();
		}

		@Override
		public void claimed(int bucket, ClaimResult result) {
			noteReady(bucket, result.remaining());
			List<ClaimedJob> jobs = result.jobs();
			double atLeast = jobs.isEmpty() ? Double.longBitsToDouble(this.bounds.get(bucket))
					: jobs.get(jobs.size() - 1).readyScore();
			TopicConsumer.this.signals.heads()
				.learned(bucket, (result.remaining() > 0) ? atLeast : Double.POSITIVE_INFINITY,
						this.signalsBefore.get(bucket));
		}

	}

}
