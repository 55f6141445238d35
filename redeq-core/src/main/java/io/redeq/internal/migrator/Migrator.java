package io.redeq.internal.migrator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.InstanceInfo;
import io.redeq.RedeqOptions;
import io.redeq.internal.JobEvents;
import io.redeq.internal.LayoutHold;
import io.redeq.internal.LogOnce;
import io.redeq.internal.WakeUps;
import io.redeq.internal.consumer.HandOffs;
import io.redeq.internal.consumer.LocalWorkSignals;
import io.redeq.internal.recurring.RecurringJobs;
import io.redeq.internal.redis.BucketLayout;
import io.redeq.internal.redis.BucketPeek;
import io.redeq.internal.redis.JobQueries;
import io.redeq.internal.redis.LayoutChangedException;
import io.redeq.internal.redis.MigrateResult;
import io.redeq.internal.redis.RedisJobStore;

/**
 * Moves due jobs from this instance's buckets to their topics' ready lists. One thread
 * per engine, started by {@link #start()}; until then it does nothing in Redis.
 *
 * <p>
 * Ownership: every instance announces itself with a heartbeat and keeps about
 * {@code buckets / live instances} bucket locks (SET NX PX with its id, renewed by each
 * sweep, released on close), trying buckets from an offset of its own so instances do not
 * collide. A dead instance stops renewing; its locks expire within {@code lock-ttl} and
 * the others take them. {@link BucketOwnership} keeps the plan.
 *
 * <p>
 * Timing: a bucket is migrated until less than a batch is due, then left until its next
 * due job, measured from the Redis time the script returned (so the local clock plays no
 * part). It is woken early when this instance schedules an earlier job, or when another
 * instance says so on the {@link WakeChannel} (not in proxy mode, which forbids pub/sub:
 * there a job another instance schedules earlier than its bucket's next one waits for the
 * sweep). Both are hints: every sweep interval a sweep looks at the head of each owned
 * bucket (one script on a standalone Redis), renews the locks, and migrates where
 * anything is due, a lease expired or a dead job outlived its retention; that alone keeps
 * everything correct.
 *
 * <p>
 * One class because it is the loop's steps (ownership, sweep, the pipelined round with
 * its hand-offs, the plan each reply makes) and close; the plan itself is
 * {@link BucketOwnership}'s, what it needs from Redis {@link MigrationScripts}'.
 */
public final class Migrator implements WakeUps, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(Migrator.class);

	/** How long every step waits after Redis failed one. */
	private static final Duration RETRY_DELAY = Duration.ofSeconds(1);

	private static final long LEAD_NANOS = HandOffs.LEAD_MILLIS * 1_000_000L;

	private final MigrationScripts store;

	private final RedeqOptions options;

	private final String instanceId;

	private final JobEvents events;

	private final BucketOwnership ownership;

	private final WakeHints wakeChannel;

	private final LocalWorkSignals localSignals;

	private final HandOffs handOffs;

	private final Thread thread;

	private final LogOnce failures = new LogOnce(logger);

	private final LayoutHold layoutHold;

	private final CronRefills recurring;

	private final InstanceDescriptions description;

	private final Supplier<List<InstanceInfo.Listener>> listeners;

	private final LayoutWatch layout;

	/** {@link System#nanoTime()}, or a test's clock: when a reply came in. */
	private final LongSupplier nanoClock;

	private volatile boolean running = true;

	/**
	 * A migrator that has not started.
	 * @param store the job store
	 * @param options the engine's options
	 * @param instanceId this engine's id, the owner of its bucket locks
	 * @param events metrics
	 * @param localSignals this engine's consumers, woken directly in proxy mode
	 * @param handOffs this engine's consumers, whose free slots take due jobs at once
	 * @param recurring the recurring jobs whose plans this migrator refills
	 * @param description what this instance publishes of itself with each heartbeat
	 * @param listeners this instance's running subscriptions, for its description
	 * @param hold told {@code true} when the bucket layout recorded in Redis is no longer
	 * the one this instance runs on, so that its consumers claim nothing, and
	 * {@code false} when it is again (see {@link LayoutWatch})
	 */
	public Migrator(RedisJobStore store, RedeqOptions options, String instanceId, JobEvents events,
			LocalWorkSignals localSignals, HandOffs handOffs, RecurringJobs recurring, InstanceDescriptions description,
			Supplier<List<InstanceInfo.Listener>> listeners, Consumer<Boolean> hold) {
		this(MigrationScripts.of(store), (wake) -> new WakeChannel(store, options.buckets(), wake, options.proxyMode()),
				options, instanceId, events, localSignals, handOffs, recurring::refill, description, listeners,
				System::nanoTime, new JobQueries(store.keys(), store.scripts())::readLayout, hold);
	}

	/**
	 * A migrator on the given ports: Redis and the wake channel, or a test's fakes.
	 * @param wakeChannel the channel, given where a wake-up heard on it goes
	 * @param nanoClock {@link System#nanoTime()}, or a test's clock, on which the
	 * migrator plans its calls
	 * @param layout reads the bucket layout recorded in Redis
	 * @param hold told whether this instance must hold (see {@link LayoutWatch})
	 */
	Migrator(MigrationScripts store, Function<IntConsumer, WakeHints> wakeChannel, RedeqOptions options,
			String instanceId, JobEvents events, LocalWorkSignals localSignals, HandOffs handOffs,
			CronRefills recurring, InstanceDescriptions description, Supplier<List<InstanceInfo.Listener>> listeners,
			LongSupplier nanoClock, Supplier<BucketLayout> layout, Consumer<Boolean> hold) {
		this.handOffs = handOffs;
		this.description = description;
		this.listeners = listeners;
		this.store = store;
		this.recurring = recurring;
		this.options = options;
		this.layoutHold = new LayoutHold(logger, "Migrator of prefix '" + options.prefix() + "'", "migrates nothing");
		this.instanceId = instanceId;
		this.events = events;
		this.nanoClock = nanoClock;
		this.ownership = new BucketOwnership(options.buckets(), Math.floorMod(instanceId.hashCode(), options.buckets()),
				options.lockTtl(), options.sweepInterval(), nanoClock);
		this.wakeChannel = wakeChannel.apply(this.ownership::wakeNow);
		this.localSignals = localSignals;
		this.layout = new LayoutWatch(layout, options.prefix(), options.buckets(), hold);
		this.thread = new Thread(this::run, "redeq-migrator-" + options.prefix());
		this.thread.setDaemon(true);
	}

	public void start() {
		this.thread.start();
	}

	/** Buckets this instance migrates right now. */
	public int[] ownedBuckets() {
		return this.ownership.owned();
	}

	@Override
	public void earlierJob(int bucket, long dueAtMillis) {
		if (this.running && this.ownership.wakeNow(bucket)) {
			return;
		}
		this.wakeChannel.publish(bucket, dueAtMillis);
	}

	private void run() {
		while (this.running) {
			pass();
			awaitNextWakeUp();
		}
	}

	/**
	 * One pass of the migrator's loop, without its wait: the ownership check and the
	 * sweep when due, then every bucket whose time has come. A pass that fails backs
	 * every step off by {@link #RETRY_DELAY}.
	 */
	void pass() {
		try {
			if (this.ownership.ownershipCheckDue()) {
				maintainOwnership();
				this.ownership.ownershipChecked();
			}
			if (this.ownership.sweepDue()) {
				sweep();
				this.ownership.swept();
			}
			migrateDueBuckets();
			this.failures.recovered("Migrator of prefix '{}' works again", this.options.prefix());
		}
		catch (LayoutChangedException ex) {
			// Frozen buckets while the bucket count changes: nothing migrated there. The
			// engine follows the recorded layout; until then this migrator holds.
			this.layoutHold.refused(ex);
			this.ownership.backOff(RETRY_DELAY);
		}
		catch (RuntimeException ex) {
			this.failures.failed("Migrator of prefix '" + this.options.prefix()
					+ "' cannot reach Redis or run its scripts; retrying every second until it can", ex);
			this.ownership.backOff(RETRY_DELAY);
		}
	}

	/**
	 * Keeps this instance's fair share of the buckets: announces it is alive, gives back
	 * what is beyond its share now that more instances run, and tries to take more when
	 * fewer do.
	 */
	private void maintainOwnership() {
		this.wakeChannel.subscribe();
		long live = this.store.heartbeat(this.instanceId, this.options.lockTtl().toMillis(), false);
		// Read after the heartbeat: a change of the bucket count that began before this
		// read is seen here, and one that begins after it sees the heartbeat and waits.
		if (!this.layout.check()) {
			takeFairShare(0);
		}
		else {
			takeFairShare(this.ownership.fairShare(live));
		}
		publishDescription();
	}

	private void takeFairShare(int share) {
		for (int bucket : this.ownership.beyond(share)) {
			release(bucket);
		}
		int owned = this.ownership.owned().length;
		for (int bucket : this.ownership.candidates()) {
			if (owned >= share || !this.running) {
				return;
			}
			if (this.store.tryLock(bucket, this.instanceId, this.options.lockTtl().toMillis())) {
				this.ownership.take(bucket);
				owned++;
				logger.debug("Instance {} now migrates bucket {}", this.instanceId, bucket);
			}
		}
	}

	/**
	 * Tells the other instances (and the dashboard) who this instance is and what it
	 * does, with the heartbeat's ttl, so a dead instance's description expires with its
	 * heartbeat. Not awaited: a lost write only lets the last one expire early.
	 */
	private void publishDescription() {
		String text = this.description.describe(this.ownership.owned(), this.listeners.get());
		this.store.describeInstance(this.instanceId, text, this.options.lockTtl().toMillis()).exceptionally((ex) -> {
			logger.debug("Could not publish the description of instance {}: {}", this.instanceId, ex.getMessage());
			return null;
		});
	}

	/**
	 * The safety net: one look at the head of every owned bucket's indexes (one script on
	 * a standalone Redis), renewing the locks on the way; a full migrate only where
	 * something is due, a lease expired or a dead job outlived its retention. Everything
	 * an event-driven wake-up missed is caught here within one sweep interval.
	 */
	private void sweep() {
		int[] mine = this.ownership.owned();
		if (mine.length == 0) {
			return;
		}
		long retention = this.options.deadLetterRetention().toMillis();
		for (BucketPeek peek : this.store.peek(mine, this.instanceId, this.options.lockTtl().toMillis())) {
			if (!peek.held()) {
				lose(peek.bucket());
			}
			else if (peek.needsSweep(retention)) {
				migrate(peek.bucket(), true);
			}
			else if (peek.nextDue() >= 0) {
				this.ownership.sweptHead(peek.bucket(), Math.max(0, peek.nextDue() - peek.now()) * 1_000_000L,
						this.handOffs.anyConsumer() ? LEAD_NANOS : 0);
			}
		}
	}

	/**
	 * Migrates every bucket whose time has come in one pipelined round: when jobs fall
	 * due in several buckets at once, none waits behind another's round trip. Each
	 * bucket's script may hand due jobs straight to this engine's idle consumers, whose
	 * free slots are split over the round's buckets ({@link HandOffs}); every offer is
	 * settled before this returns, so no slot stays taken.
	 */
	private void migrateDueBuckets() {
		int[] candidates = IntStream.range(0, this.options.buckets()).filter(this.ownership::isDue).toArray();
		if (candidates.length == 0 || !this.running) {
			return;
		}
		List<List<HandOffs.Offer>> collected = this.handOffs.collect(candidates);
		// A call planned ahead of the due time is only worth it with a consumer to hand
		// the job to: without one, the bucket waits for the due time.
		List<Integer> kept = new ArrayList<>();
		for (int i = 0; i < candidates.length; i++) {
			long dueTime = this.ownership.earlyFor(candidates[i]);
			if (dueTime != BucketOwnership.NEVER && collected.get(i).isEmpty()) {
				this.ownership.planWake(candidates[i], dueTime);
			}
			else {
				kept.add(i);
			}
		}
		if (kept.isEmpty()) {
			return;
		}
		int[] due = kept.stream().mapToInt((i) -> candidates[i]).toArray();
		List<List<HandOffs.Offer>> offers = kept.stream().map(collected::get).toList();
		for (int bucket : due) {
			this.ownership.sent(bucket);
		}
		RuntimeException failure = null;
		try {
			this.store.migrateDue(due, this.options.batchSize(),
					offers.stream().map((inBucket) -> inBucket.stream().map(HandOffs.Offer::request).toList()).toList(),
					offers.stream()
						.map((inBucket) -> inBucket.stream().flatMap((offer) -> offer.completions().stream()).toList())
						.toList(),
					(bucket, result) -> {
						long repliedNanos = this.nanoClock.getAsLong();
						List<HandOffs.Offer> mine = offers.get(indexOf(due, bucket));
						int from = 0;
						for (int i = 0; i < mine.size(); i++) {
							HandOffs.Offer offer = mine.get(i);
							int carried = offer.completions().size();
							offer.accept(result.handedOver().get(i), result.completed().subList(from, from + carried),
									result.nowMicros(), repliedNanos);
							from += carried;
						}
						migrated(bucket, result);
					});
		}
		catch (RuntimeException ex) {
			failure = ex;
			throw ex;
		}
		finally {
			// Offers whose bucket's reply was in are settled already: this does nothing
			// to them. A wake-up kept while a call was in flight applies now.
			for (int i = 0; i < due.length; i++) {
				for (HandOffs.Offer offer : offers.get(i)) {
					offer.fail(failure);
				}
				this.ownership.answered(due[i]);
			}
		}
	}

	private static int indexOf(int[] buckets, int bucket) {
		for (int i = 0; i < buckets.length; i++) {
			if (buckets[i] == bucket) {
				return i;
			}
		}
		throw new IllegalStateException("Bucket " + bucket + " was not in this round");
	}

	private void migrate(int bucket, boolean sweep) {
		migrated(bucket, this.store.migrate(bucket, this.options.batchSize(), sweep, this.instanceId,
				this.options.lockTtl().toMillis(), this.options.deadLetterRetention().toMillis()));
	}

	private void migrated(int bucket, MigrateResult result) {
		this.layoutHold.answered();
		result.readyByTopic().forEach((topic, count) -> {
			this.store.signal(topic, bucket).exceptionally((ex) -> null);
			this.localSignals.ready(topic, bucket);
		});
		if (result.migrated() + result.reclaimed() > 0) {
			this.events.migrated(bucket, result.migrated(), result.reclaimed());
		}
		long next = result.nextDue();
		if (!result.recurringToRefill().isEmpty()) {
			// Cron ticks planned off the hot path; a trigger whose plan was empty moves.
			long moved = this.recurring.refill(bucket, result.recurringToRefill(), result.now());
			if (moved > 0 && (next < 0 || moved < next)) {
				next = moved;
			}
		}
		if (!result.lockHeld()) {
			lose(bucket);
		}
		else if (result.mayHaveMore(this.options.batchSize())) {
			this.ownership.wakeIn(bucket, 0);
		}
		else if (next >= 0 && this.handOffs.anyConsumer()) {
			// Ahead of the due time, so the round trip is over when the job is due: the
			// consumer it is handed to starts it at that time (HandOffs.LEAD_MILLIS).
			this.ownership.wakeAhead(bucket, result.nanosUntil(next), LEAD_NANOS);
		}
		else if (next >= 0) {
			// To the start of the due millisecond: planned from whole milliseconds, the
			// wake-up came on average half a millisecond after it.
			this.ownership.wakeInNanos(bucket, result.nanosUntil(next));
		}
		else {
			this.ownership.idle(bucket);
		}
	}

	private void lose(int bucket) {
		this.ownership.forget(bucket);
		logger.debug("Lost the lock of bucket {} to another instance", bucket);
	}

	private void release(int bucket) {
		this.ownership.forget(bucket);
		this.store.unlock(bucket, this.instanceId);
	}

	private void awaitNextWakeUp() {
		try {
			this.ownership.awaitNextWakeUp(() -> this.running);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.running = false;
		}
	}

	/**
	 * Stops migrating, then releases every lock and leaves, so others take over at once.
	 * A migrator never started has nothing to give back, and touches nothing.
	 */
	@Override
	public void close() {
		boolean started = this.thread.getState() != Thread.State.NEW;
		this.running = false;
		this.ownership.wakeAll();
		if (!started) {
			return;
		}
		if (this.thread.isAlive() && this.thread != Thread.currentThread()) {
			try {
				this.thread.join(this.options.commandTimeout().toMillis() + 1000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		try {
			for (int bucket : this.ownership.owned()) {
				release(bucket);
			}
			this.store.heartbeat(this.instanceId, this.options.lockTtl().toMillis(), true);
			this.store.forgetInstance(this.instanceId);
		}
		catch (RuntimeException ex) {
			logger.info("Could not release bucket locks on close ({}); other instances take them over within {}",
					ex.getMessage(), this.options.lockTtl());
		}
		this.wakeChannel.close();
	}

}
