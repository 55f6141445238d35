package io.redeq;

import java.lang.reflect.Type;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.lettuce.core.AbstractRedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.ObjectMapper;

import io.redeq.internal.EngineAccess;
import io.redeq.internal.JobEvents;
import io.redeq.internal.LayoutFollower;
import io.redeq.internal.Validate;
import io.redeq.internal.codec.JacksonPayloadCodec;
import io.redeq.internal.codec.PayloadCodec;
import io.redeq.internal.consumer.ConsumerSettings;
import io.redeq.internal.consumer.TopicConsumer;
import io.redeq.internal.control.RateLimit;
import io.redeq.internal.control.TopicPauses;
import io.redeq.internal.history.JobHistory;
import io.redeq.internal.metrics.MicrometerJobEvents;
import io.redeq.internal.metrics.SnapshotRefresher;
import io.redeq.internal.migrator.InstanceDescriptions;
import io.redeq.internal.migrator.Migrator;
import io.redeq.internal.observation.ProcessObservations;
import io.redeq.internal.observation.ScheduleObservations;
import io.redeq.internal.redis.BucketLayout;
import io.redeq.internal.redis.FormatUpgrade;
import io.redeq.internal.redis.JobQueries;
import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.LayoutChangedException;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.Resharder;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.internal.schedule.AsyncJobScheduler;
import io.redeq.internal.schedule.JobRestorer;
import io.redeq.internal.schedule.JobScheduler;
import io.redeq.internal.schedule.JournalHooks;

/**
 * The redeq engine on one Lettuce client: its {@link #client() client} schedules jobs,
 * its {@link #admin() admin} operates queues, {@link #subscribe} consumes a topic, and
 * its migrator moves due jobs to the ready queues in the background.
 *
 * <pre class="code">
 * Redeq redeq = Redeq.builder(redisClient).prefix("redeq").buckets(16).build();
 * redeq.client().schedule("order.timeout", new OrderTimeout(42), Duration.ofMinutes(30));
 * Subscription s = redeq.subscribe("order.timeout", OrderTimeout.class, (payload, delivery) -&gt; ...);
 * </pre>
 *
 * {@link Builder#build()} starts the engine: it checks the bucket count recorded in
 * Redis, then its migrator runs. Closing stops the subscriptions gracefully, then the
 * migrator, and closes the connections redeq opened; the Lettuce client stays open,
 * because its owner closes it.
 *
 * <p>
 * One class because the public API makes it the whole entry point (client, admin, the
 * subscribe overloads, snapshots, close) and the home of its {@link Builder}, and because
 * following a change of the bucket count swaps the parts behind all of them under one
 * lifecycle lock; the settings, their defaults and their rules are in
 * {@link RedeqOptions}, the parts of one bucket layout in {@code LayoutParts}, the
 * running subscriptions in {@code SubscriptionRegistry}.
 *
 * @since 0.1.0
 */
public final class Redeq implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(Redeq.class);

	private final RedeqOptions options;

	private final String instanceId;

	private final RedisConnections connections;

	private final PayloadCodec codec;

	/**
	 * The parts that work on the bucket layout this engine runs on; replaced when it
	 * follows a change of the bucket count (see {@link #follow}).
	 */
	private volatile LayoutParts parts;

	/** What every layout's parts share. */
	private final LayoutParts.Shared shared;

	private final AsyncJobScheduler scheduler;

	private final JobScheduler client;

	private final RedeqAdmin admin;

	private final JobEvents events;

	private final ProcessObservations processObservations;

	private final JobHistory history;

	private final List<JobLifecycleListener> listeners;

	private final ScheduledExecutorService timers;

	/**
	 * Its own thread: a refresh waits on Redis, and must never delay a lease renewal or a
	 * timeout.
	 */
	private final ScheduledExecutorService statsTimer;

	private final SubscriptionRegistry subscriptions = new SubscriptionRegistry();

	/**
	 * Its own thread: following a change of the bucket count reads Redis and starts and
	 * stops parts, which must never delay a lease renewal or a timeout.
	 */
	private final ScheduledExecutorService layoutTimer;

	/** When the recorded layout was last read, in nanoseconds; guarded by lifecycle. */
	private long layoutReadAt;

	/** The recorded layout as last read. */
	private volatile @Nullable BucketLayout lastLayout;

	/** Where calls refused by a changed bucket layout wait, or send their new jobs. */
	private final LayoutFollower follower = new LayoutFollower() {

		@Override
		public CompletableFuture<Void> followed(int refusedBuckets) {
			return Redeq.this.followed(refusedBuckets);
		}

		@Override
		public CompletableFuture<Integer> changingTo(int refusedBuckets) {
			return Redeq.this.changingTo(refusedBuckets);
		}

	};

	/** The layout generation whose change this engine last logged following. */
	private volatile long followedGeneration = -1;

	private final SnapshotRefresher snapshots;

	private final TopicPauses pauses;

	private final boolean metered;

	private final Object lifecycle = new Object();

	/** Guarded by {@link #lifecycle}. */
	private boolean started;

	private volatile boolean closed;

	/**
	 * The JVM shutdown hook that closes this engine, if the builder asked for one;
	 * removed by {@link #close()}.
	 */
	private volatile @Nullable Thread shutdownHook;

	/**
	 * Builds the parts, without a Redis command or a thread: an engine that is never
	 * {@link #start() started} leaves Redis as it found it.
	 * @param builder the client and collaborators to use
	 * @param options the settings, already valid
	 */
	private Redeq(Builder builder, RedeqOptions options) {
		this.options = options;
		this.instanceId = builder.instanceId();
		this.connections = new RedisConnections(builder.client);
		ScriptRunner scripts = new ScriptRunner(this.connections, options.commandTimeout(), !options.proxyMode());
		KeySpace keys = new KeySpace(options.prefix(), options.buckets());
		this.codec = new JacksonPayloadCodec(builder.payloadMapper);
		MicrometerJobEvents meters = (builder.meterRegistry != null) ? new MicrometerJobEvents(builder.meterRegistry)
				: null;
		this.history = new JobHistory(keys, scripts, (meters != null) ? meters : JobEvents.NONE, Clock.systemUTC());
		this.events = this.history;
		this.listeners = List.copyOf(builder.listeners);
		this.pauses = new TopicPauses(new RedisJobStore(keys, scripts, options.proxyMode()));
		ObservationRegistry observationRegistry = builder.observationRegistry;
		this.processObservations = (observationRegistry != null)
				? new ProcessObservations(observationRegistry, builder.processConvention) : ProcessObservations.OFF;
		ScheduleObservations scheduleObservations = (observationRegistry != null)
				? new ScheduleObservations(observationRegistry, builder.scheduleConvention) : ScheduleObservations.OFF;
		ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "redeq-timers-" + options.prefix());
			thread.setDaemon(true);
			return thread;
		});
		// Every job sets a handler timeout and cancels it when done: without this a
		// drained backlog leaves one cancelled task per job queued until its time comes.
		timers.setRemoveOnCancelPolicy(true);
		this.timers = timers;
		Function<String, SubscriptionOptions> pollOptions = builder.pollOptions;
		this.shared = new LayoutParts.Shared(this.instanceId, scripts, this.connections.isCluster(), this.codec,
				this.events, this.listeners, this.timers, this.processObservations, this.pauses,
				new InstanceDescriptions(this.instanceId, Instant.now()),
				() -> this.subscriptions.listeners(this.pauses::isPaused), this::hold,
				(topic) -> pollSettings(topic, pollOptions.apply(topic)), builder.pollNotRetryable, this::watchPauses);
		this.parts = new LayoutParts(options, this.shared);
		LayoutParts first = this.parts;
		this.scheduler = new AsyncJobScheduler(first.store, this.codec, options, first.wakeUps, this.events,
				scheduleObservations);
		this.client = new JobScheduler(this.scheduler, scripts, () -> this.parts.recurring, this::poll);
		this.client.followLayoutWith(this.follower);
		this.admin = new LayoutFollowingAdmin(() -> this.parts, this.follower, this::changeBucketCount);
		this.layoutTimer = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "redeq-layout-" + options.prefix());
			thread.setDaemon(true);
			return thread;
		});
		this.statsTimer = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "redeq-stats-" + options.prefix());
			thread.setDaemon(true);
			return thread;
		});
		this.snapshots = new SnapshotRefresher(() -> this.parts.store, this.statsTimer, options.statsRefreshInterval(),
				() -> Arrays.stream(ownedBuckets()).boxed().toList(), this::subscribedTopics, this.pauses::refresh);
		this.metered = meters != null;
		if (meters != null) {
			this.snapshots.onRefresh(meters::update);
		}
	}

	/**
	 * Before a topic's first poll: keeps this instance's copy of the paused topics fresh,
	 * and reads it now, so that the first poll already sees a pause.
	 */
	private void watchPauses() {
		this.pauses.watch(this.timers);
		this.pauses.refresh();
	}

	private Optional<PolledJob> poll(String topic, Duration maxWait) {
		return this.parts.pollers.poll(topic, maxWait);
	}

	// A listener's settings, with the lease the whole timeout: nothing renews it.
	private ConsumerSettings pollSettings(String topic, SubscriptionOptions subscriptionOptions) {
		Duration timeout = subscriptionOptions.timeout(this.options);
		return new ConsumerSettings(topic, Object.class, 1, subscriptionOptions.maxAttempts(this.options), timeout,
				timeout, subscriptionOptions.backoff(this.options), rateLimit(subscriptionOptions));
	}

	private static @Nullable RateLimit rateLimit(SubscriptionOptions subscriptionOptions) {
		return (subscriptionOptions.rateLimitPermits() != null)
				? new RateLimit(subscriptionOptions.rateLimitPermits(), subscriptionOptions.rateLimitWindow()) : null;
	}

	/**
	 * Starts building an engine on a Lettuce {@code RedisClient} or
	 * {@code RedisClusterClient} that the caller owns and closes.
	 * @param client the client
	 * @return a builder holding the default options
	 */
	public static Builder builder(AbstractRedisClient client) {
		return new Builder(client);
	}

	/**
	 * Starts the engine, unless it runs already: refuses a prefix whose data Redis holds
	 * in a newer format than this version's, records the bucket count for the prefix (or
	 * refuses one that differs from the recorded count), converts jobs of redeq's first
	 * data format and records this version's format, then starts the migrator and, with a
	 * meter registry, the background refresh of the {@link #snapshot() snapshot}.
	 * {@link Builder#build()} calls it unless {@link Builder#autoStartup(boolean)
	 * autoStartup} is off; the Spring Boot starter calls it from its lifecycle, so that
	 * no bean creation writes to Redis. Scheduling and subscribing work before it, but
	 * only against a bucket count nothing has checked yet. While a change of the bucket
	 * count is under way it starts all the same, and migrates and claims nothing until
	 * the change is over, then follows the new count.
	 * @throws BucketCountMismatchException if Redis records another bucket count for the
	 * prefix; the engine then stays stopped
	 * @throws RedeqException if Redis holds the prefix's data in a format newer than this
	 * version reads (written by a newer redeq); the engine then stays stopped and has
	 * changed nothing
	 * @throws IllegalStateException if the engine is closed
	 */
	public void start() {
		synchronized (this.lifecycle) {
			if (this.closed) {
				throw new IllegalStateException("Cannot start redeq of prefix '" + this.options.prefix()
						+ "': it is closed; build a new engine");
			}
			if (this.started) {
				return;
			}
			checkBucketCount();
			this.started = true;
			this.parts.start();
			if (!this.options.migratorEnabled()) {
				// Without a migrator nothing reads the layout at each heartbeat: look
				// at it as often, so that this engine follows a change of the count.
				long every = this.options.lockTtl().toMillis();
				this.layoutTimer.scheduleWithFixedDelay(this::followRecordedLayoutQuietly, every, every,
						TimeUnit.MILLISECONDS);
			}
			if (this.metered) {
				this.snapshots.latest();
			}
			this.history.start(this.statsTimer);
		}
	}

	/**
	 * How long a call refused because the bucket count is changing waits for the change
	 * to end before it fails: the change moves every job, and callers wait for it rather
	 * than fail at once.
	 */
	private static final Duration CHANGE_WAIT = Duration.ofSeconds(30);

	/** How often the recorded layout is read while calls wait for a change to end. */
	private static final Duration CHANGE_POLL = Duration.ofMillis(50);

	/**
	 * What a call that a changed bucket layout refused waits for: this engine running on
	 * another count than the refused one. Reads the recorded layout (at most once per
	 * {@link #CHANGE_POLL} for all waiting calls together) and follows it once the change
	 * is over.
	 * @param refusedBuckets the count the refused call was made on
	 * @return completes once this engine runs on another count
	 */
	private CompletableFuture<Void> followed(int refusedBuckets) {
		if (this.parts.buckets() != refusedBuckets) {
			return CompletableFuture.completedFuture(null);
		}
		// On the layout thread: the refusal may reach here on Lettuce's I/O thread, which
		// must not wait for Redis.
		CompletableFuture<Void> done = new CompletableFuture<>();
		long deadline = System.nanoTime() + CHANGE_WAIT.toNanos();
		try {
			this.layoutTimer.execute(() -> awaitFollowed(refusedBuckets, deadline, done));
		}
		catch (RejectedExecutionException ex) {
			done.completeExceptionally(new IllegalStateException("redeq of prefix '" + this.options.prefix()
					+ "' is closed; a call refused by a change of its bucket count is not sent again", ex));
		}
		return done;
	}

	private void awaitFollowed(int refusedBuckets, long deadline, CompletableFuture<Void> done) {
		try {
			if (this.parts.buckets() != refusedBuckets) {
				done.complete(null);
				return;
			}
			if (this.closed) {
				done.completeExceptionally(new IllegalStateException("redeq of prefix '" + this.options.prefix()
						+ "' closed while a call waited for a change of " + "its bucket count to end"));
				return;
			}
			followRecordedLayoutQuietly();
			if (this.parts.buckets() != refusedBuckets) {
				done.complete(null);
				return;
			}
			if (System.nanoTime() - deadline > 0) {
				done.completeExceptionally(new LayoutChangedException("The bucket count of prefix '"
						+ this.options.prefix() + "' is changing and the change did not end within " + CHANGE_WAIT
						+ "; nothing was written. Try again once RedeqAdmin.changeBucketCount returned (if it was "
						+ "interrupted, call it again with the same count to finish it)"));
				return;
			}
			this.layoutTimer.schedule(() -> awaitFollowed(refusedBuckets, deadline, done), CHANGE_POLL.toMillis(),
					TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			done.completeExceptionally(new IllegalStateException("redeq of prefix '" + this.options.prefix()
					+ "' is closed; a call refused by a change of its bucket count is not sent again", ex));
		}
		catch (RuntimeException ex) {
			done.completeExceptionally(ex);
		}
	}

	/**
	 * Reads the layout Redis records, unless it was read within {@link #CHANGE_POLL}, and
	 * follows it if a change ended on another count than this engine's.
	 */
	private void followRecordedLayout() {
		follow(recordedLayout());
	}

	/**
	 * The layout Redis records, read again only when the last read is older than
	 * {@link #CHANGE_POLL}: however many calls wait, they share one read.
	 * @return the recorded layout
	 */
	private BucketLayout recordedLayout() {
		synchronized (this.lifecycle) {
			long now = System.nanoTime();
			BucketLayout last = this.lastLayout;
			if (last != null && now - this.layoutReadAt < CHANGE_POLL.toNanos()) {
				return last;
			}
			this.layoutReadAt = now;
		}
		BucketLayout layout = this.parts.queries.readLayout();
		this.lastLayout = layout;
		return layout;
	}

	/**
	 * The count a change under way moves to (see {@link LayoutFollower#changingTo}), read
	 * on the layout thread; 0 once this engine left {@code refusedBuckets} or no change
	 * runs, and when Redis cannot be read (the caller then waits for the change to end).
	 * @param refusedBuckets the count the refused call was made on
	 * @return the count the change moves to, or 0
	 */
	private CompletableFuture<Integer> changingTo(int refusedBuckets) {
		if (this.parts.buckets() != refusedBuckets) {
			return CompletableFuture.completedFuture(0);
		}
		CompletableFuture<Integer> answer = new CompletableFuture<>();
		try {
			this.layoutTimer.execute(() -> {
				try {
					BucketLayout layout = recordedLayout();
					follow(layout);
					answer.complete((this.parts.buckets() == refusedBuckets) ? layout.changingTo() : 0);
				}
				catch (RuntimeException ex) {
					answer.complete(0);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			answer.complete(0);
		}
		return answer;
	}

	/** {@link #followRecordedLayout()} from a timer: a failure is retried next time. */
	private void followRecordedLayoutQuietly() {
		try {
			followRecordedLayout();
		}
		catch (RuntimeException ex) {
			logger.debug("redeq could not read the bucket layout of prefix '{}': {}", this.options.prefix(),
					ex.toString());
		}
	}

	/**
	 * Moves this engine to the bucket count Redis records, once a change of the count is
	 * over: new parts on the new layout take every later call, the subscriptions move to
	 * consumers on it (the ones they had finish their running jobs and stop), and the old
	 * parts stop in the background. Nothing is lost in between: a call the old layout
	 * refuses runs again on the new one, and the change waited for every job running in
	 * an old bucket before it ended.
	 * @param layout the recorded layout
	 * @return whether this engine moved
	 */
	private boolean follow(BucketLayout layout) {
		LayoutParts old;
		synchronized (this.lifecycle) {
			old = this.parts;
			if (this.closed || layout.changingTo() != 0 || layout.buckets() == 0 || layout.buckets() == old.buckets()) {
				return false;
			}
			LayoutParts next = new LayoutParts(this.options.mutate().buckets(layout.buckets()).build(), this.shared);
			this.parts = next;
			this.scheduler.relayout(next.store, next.options, next.wakeUps);
			if (this.started) {
				next.start();
			}
			this.subscriptions.moveAll(next.consumers);
			this.pauses.hold(false);
		}
		if (this.followedGeneration != layout.generation()) {
			this.followedGeneration = layout.generation();
			logger.warn(
					"redeq prefix '{}' now runs on {} buckets, the count recorded in Redis (layout generation {}), "
							+ "instead of {}; set redeq.buckets={} to start on it",
					this.options.prefix(), layout.buckets(), layout.generation(), old.buckets(), layout.buckets());
		}
		Thread stopping = new Thread(old::close, "redeq-layout-stop-" + this.options.prefix());
		stopping.setDaemon(true);
		stopping.start();
		return true;
	}

	/**
	 * Told by a layout's migrator whether it holds because the recorded layout is not its
	 * own (see {@code LayoutWatch}): consumers claim nothing while it does, and a change
	 * that is over is followed. A replaced layout's migrator, still stopping, is not
	 * listened to.
	 * @param from the parts whose migrator tells
	 * @param holding whether it holds
	 */
	private void hold(LayoutParts from, boolean holding) {
		if (from != this.parts) {
			return;
		}
		this.pauses.hold(holding);
		if (holding && !this.layoutTimer.isShutdown()) {
			this.layoutTimer.execute(this::followRecordedLayoutQuietly);
		}
	}

	/**
	 * Changes the bucket count of the prefix beside the running instances (see
	 * {@link RedeqAdmin#changeBucketCount(int)}), then moves this engine to the new count
	 * at once.
	 * @param buckets the new count
	 * @return the number of jobs moved to another bucket
	 */
	private long changeBucketCount(int buckets) {
		long moved = this.parts.admin.changeBucketCount(buckets);
		follow(this.parts.queries.readLayout());
		return moved;
	}

	/**
	 * Refuses a newer data format, and a bucket count that differs from the one recorded
	 * for the prefix. When Redis cannot be reached yet, the engine starts anyway (an
	 * application must survive Redis starting after it).
	 */
	private void checkBucketCount() {
		try {
			LayoutParts parts = this.parts;
			FormatUpgrade format = new FormatUpgrade(parts.store.keys(), parts.store.scripts());
			format.checkReadable();
			int[] layout = parts.queries.readBucketLayout();
			int changingTo = layout[1];
			if (changingTo != 0) {
				// Safe to start: the change's buckets refuse what would disturb it, and
				// this engine holds until the change is over, then follows its count.
				logger.warn("redeq prefix '{}': a change of its bucket count from {} to {} is under way; this "
						+ "instance starts, claims and migrates nothing until the change is over, then follows the "
						+ "new count. If no change is running (it was interrupted), finish it with "
						+ "RedeqAdmin.changeBucketCount({})", this.options.prefix(), layout[0], changingTo, changingTo);
				return;
			}
			int recorded = parts.queries.recordOrReadBucketCount(this.options.buckets());
			if (recorded != this.options.buckets()) {
				throw new BucketCountMismatchException(this.options.prefix(), recorded, this.options.buckets());
			}
			format.run();
		}
		catch (RedeqUnavailableException ex) {
			logger.warn("redeq starts without Redis ({}); scheduling fails with RedeqUnavailableException and "
					+ "consumers wait until Redis answers", ex.getMessage());
		}
	}

	/**
	 * The client that schedules, cancels and reschedules jobs.
	 * @return the client
	 */
	public RedeqClient client() {
		return this.client;
	}

	static {
		EngineAccess.install(new EngineAccess.Accessor() {

			@Override
			public JobHistory history(Redeq redeq) {
				return redeq.history;
			}

			@Override
			public JobRestorer restorer(Redeq redeq) {
				return redeq.restorer();
			}

			@Override
			public JournalHooks journalHooks(Redeq redeq) {
				return redeq.journalHooks();
			}

		});
	}

	/**
	 * Schedules jobs restored from elsewhere with the attempts they already used. The
	 * starter's journal recovery reaches it through {@link EngineAccess}.
	 * @return the restorer
	 */
	JobRestorer restorer() {
		JobScheduler scheduler = this.client;
		return new JobRestorer() {

			@Override
			public String restore(Job job, int attemptsUsed) {
				return scheduler.restore(job, attemptsUsed);
			}

			@Override
			public String restore(Job job, int attemptsUsed, @Nullable String traceContext) {
				return scheduler.restore(job, attemptsUsed, traceContext);
			}

		};
	}

	/**
	 * What the starter's journal needs from scheduling, so that its rows hold what Redis
	 * holds; reached through {@link EngineAccess}.
	 * @return the hooks
	 */
	JournalHooks journalHooks() {
		return this.client.journalHooks();
	}

	/**
	 * The admin operations: queue counts, dead jobs, requeue.
	 * @return the admin
	 */
	public RedeqAdmin admin() {
		return this.admin;
	}

	/**
	 * The options this engine runs with; its bucket count is the one it runs on now,
	 * which follows a change of the count.
	 * @return the options
	 */
	public RedeqOptions options() {
		return this.parts.options;
	}

	/**
	 * This engine's id in Redis: bucket lock owner and claim token prefix.
	 * @return the instance id
	 */
	public String instanceId() {
		return this.instanceId;
	}

	/**
	 * Buckets whose due jobs this instance migrates right now.
	 * @return the bucket numbers, none without a migrator
	 */
	public int[] ownedBuckets() {
		Migrator migrator = this.parts.migrator;
		return (migrator != null) ? migrator.ownedBuckets() : new int[0];
	}

	/**
	 * What this engine last saw of its queues: counts per topic, migration lag, how long
	 * READY jobs wait, owned buckets. Refreshed in the background every
	 * {@code stats-refresh-interval}, so calling it often costs no Redis call; the first
	 * call starts the refresh.
	 * @return the latest snapshot
	 */
	public RedeqSnapshot snapshot() {
		return this.snapshots.latest();
	}

	/**
	 * Takes a fresh snapshot now (one read per bucket); for health checks that must not
	 * be stale.
	 * @return the new snapshot
	 */
	public RedeqSnapshot refreshSnapshot() {
		this.snapshots.latest();
		return this.snapshots.refresh();
	}

	/**
	 * The job history all instances of this prefix share: per topic, jobs scheduled,
	 * completed, retried and dead per minute for a day and per hour for a month. What the
	 * dashboard draws.
	 * @return the history
	 */
	public RedeqHistory history() {
		return this.history;
	}

	/**
	 * Topics with a running subscription in this engine.
	 * @return the topic names
	 */
	public Set<String> subscribedTopics() {
		return this.subscriptions.topics();
	}

	/**
	 * Consumes a topic with the engine's default settings.
	 * @param <T> the payload type
	 * @param topic the topic
	 * @param payloadType the class payloads are read into
	 * @param handler the handler each job is given to
	 * @return the subscription, to close it
	 */
	public <T> Subscription subscribe(String topic, Class<T> payloadType, JobHandler<T> handler) {
		return subscribe(topic, (Type) payloadType, handler, SubscriptionOptions.defaults());
	}

	/**
	 * Consumes a topic with settings of its own; unset ones are the engine's.
	 * @param <T> the payload type
	 * @param topic the topic
	 * @param payloadType the class payloads are read into
	 * @param handler the handler each job is given to
	 * @param options the settings of this subscription
	 * @return the subscription, to close it
	 */
	public <T> Subscription subscribe(String topic, Class<T> payloadType, JobHandler<T> handler,
			SubscriptionOptions options) {
		return subscribe(topic, (Type) payloadType, handler, options);
	}

	/**
	 * Consumes a topic whose payload has a generic type such as {@code List<Item>}; the
	 * handler receives values of {@code payloadType}.
	 * @param <T> the payload type
	 * @param topic the topic
	 * @param payloadType the type payloads are read into
	 * @param handler the handler each job is given to
	 * @return the subscription, to close it
	 */
	public <T> Subscription subscribe(String topic, Type payloadType, JobHandler<T> handler) {
		return subscribe(topic, payloadType, handler, SubscriptionOptions.defaults());
	}

	/**
	 * Consumes a topic whose payload has a generic type, with settings of its own; unset
	 * ones are the engine's.
	 * @param <T> the payload type
	 * @param topic the topic
	 * @param payloadType the type payloads are read into
	 * @param handler the handler each job is given to
	 * @param subscriptionOptions the settings of this subscription
	 * @return the subscription, to close it
	 */
	@SuppressWarnings("unchecked")
	public <T> Subscription subscribe(String topic, Type payloadType, JobHandler<T> handler,
			SubscriptionOptions subscriptionOptions) {
		Validate.topic(topic);
		Objects.requireNonNull(payloadType, "payloadType must not be null");
		Objects.requireNonNull(handler, "handler must not be null");
		Objects.requireNonNull(subscriptionOptions, "options must not be null");
		if (this.closed) {
			throw new IllegalStateException("Cannot subscribe to topic '" + topic + "': redeq is closed");
		}
		Duration timeout = subscriptionOptions.timeout(this.options);
		ConsumerSettings settings = new ConsumerSettings(topic, payloadType,
				subscriptionOptions.concurrency(this.options), subscriptionOptions.maxAttempts(this.options), timeout,
				subscriptionOptions.lease(timeout), subscriptionOptions.backoff(this.options),
				rateLimit(subscriptionOptions));
		TopicSubscription subscription = this.subscriptions.register(topic,
				(onClosed) -> new TopicSubscription(topic, (context, consumerClosed) -> new TopicConsumer(settings,
						(JobHandler<Object>) handler, context, consumerClosed), onClosed));
		this.pauses.watch(this.timers);
		// Under the lifecycle lock: a subscription started while the engine follows a
		// change starts on the layout the others move to.
		synchronized (this.lifecycle) {
			subscription.start(this.parts.consumers);
		}
		return subscription;
	}

	/**
	 * Stops every subscription (gracefully, in parallel), then the migrator; closes
	 * redeq's connections.
	 */
	@Override
	public void close() {
		synchronized (this.lifecycle) {
			if (this.closed) {
				return;
			}
			this.closed = true;
		}
		removeShutdownHook();
		this.layoutTimer.shutdownNow();
		LayoutParts parts = this.parts;
		parts.pollers.close();
		this.subscriptions.closeAll();
		parts.close();
		this.timers.shutdownNow();
		this.statsTimer.shutdownNow();
		// Closing never opens a connection: an engine that never reached Redis has no
		// counts to write, and its client may be shut down already (a context that
		// failed before the engine started closes the client first).
		if (this.connections.isConnected()) {
			flushHistory();
		}
		this.connections.close();
	}

	/**
	 * Registers a JVM shutdown hook that {@link #close() closes} this engine: on SIGTERM,
	 * Ctrl-C or {@code System.exit}, fetching stops, running handlers get
	 * {@code shutdown-timeout} to finish and unfinished jobs go back to READY at once.
	 * @throws IllegalStateException if the JVM is shutting down already
	 */
	private void registerShutdownHook() {
		Thread hook = new Thread(this::close, "redeq-shutdown-" + this.options.prefix());
		try {
			Runtime.getRuntime().addShutdownHook(hook);
		}
		catch (IllegalStateException ex) {
			throw new IllegalStateException("Cannot register the shutdown hook of redeq (prefix '"
					+ this.options.prefix() + "'): the JVM is shutting down already; build the engine before, "
					+ "or without shutdownHook(true)", ex);
		}
		this.shutdownHook = hook;
	}

	/**
	 * The shutdown hook this engine registered and has not removed yet.
	 * @return the hook, or {@code null} if none is registered
	 */
	@Nullable Thread registeredShutdownHook() {
		return this.shutdownHook;
	}

	/**
	 * Removes the shutdown hook, so a closed engine is not kept reachable by it until the
	 * JVM exits. From the hook itself, or once the JVM is shutting down (when the hooks
	 * can no longer be removed and this one runs or ran), there is nothing to do.
	 */
	private void removeShutdownHook() {
		Thread hook = this.shutdownHook;
		this.shutdownHook = null;
		if (hook == null || hook == Thread.currentThread()) {
			return;
		}
		try {
			Runtime.getRuntime().removeShutdownHook(hook);
		}
		catch (IllegalStateException ex) {
			// The JVM is shutting down: the hook runs, and finds the engine closed.
		}
	}

	/** Writes the last counts of the job history, if Redis answers. */
	private void flushHistory() {
		try {
			this.history.flush();
		}
		catch (RuntimeException ex) {
			logger.debug("redeq closes without writing its last job history counts: {}", ex.getMessage());
		}
	}

	/**
	 * Builder of {@link Redeq}: the Lettuce client, every {@link RedeqOptions} setting
	 * (one setter per configuration key, named after it, inherited from
	 * {@link RedeqOptions.BaseBuilder}, where its default and its rule live) and the
	 * engine's collaborators.
	 */
	public static final class Builder extends RedeqOptions.BaseBuilder<Builder> {

		private final AbstractRedisClient client;

		private @Nullable ObjectMapper payloadMapper;

		private @Nullable MeterRegistry meterRegistry;

		private @Nullable ObservationRegistry observationRegistry;

		private @Nullable RedeqScheduleObservationConvention scheduleConvention;

		private @Nullable RedeqProcessObservationConvention processConvention;

		private @Nullable String instanceId;

		private final List<JobLifecycleListener> listeners = new ArrayList<>();

		private boolean autoStartup = true;

		private boolean shutdownHook;

		private Function<String, SubscriptionOptions> pollOptions = (topic) -> SubscriptionOptions.defaults();

		private Function<String, Set<String>> pollNotRetryable = (topic) -> Set.of();

		private Builder(AbstractRedisClient client) {
			this.client = Objects.requireNonNull(client, "Lettuce client must not be null");
		}

		/**
		 * Replaces every setting with those of {@code options}; setters called afterwards
		 * change them further.
		 * @param options the options
		 * @return this builder
		 */
		public Builder options(RedeqOptions options) {
			return from(options);
		}

		/**
		 * The Jackson mapper for payloads; a plain JsonMapper when not set.
		 * @param mapper the mapper, or {@code null}
		 * @return this builder
		 */
		public Builder payloadMapper(@Nullable ObjectMapper mapper) {
			this.payloadMapper = mapper;
			return this;
		}

		/**
		 * Where redeq records its meters; none means no metrics and no cost.
		 * @param registry the registry, or {@code null}
		 * @return this builder
		 */
		public Builder meterRegistry(@Nullable MeterRegistry registry) {
			this.meterRegistry = registry;
			return this;
		}

		/**
		 * Turns on Micrometer Observation (off when not set): each schedule runs in an
		 * observation (producer kind) and stores the W3C trace context a tracer
		 * propagated with the job; each handler runs in an observation (consumer kind)
		 * whose parent is that context. Without a tracer nothing is stored.
		 * @param registry the registry, or {@code null} for none
		 * @return this builder
		 */
		public Builder observationRegistry(@Nullable ObservationRegistry registry) {
			this.observationRegistry = registry;
			return this;
		}

		/**
		 * Replaces the naming and tags of schedule observations; the default is
		 * {@link DefaultRedeqScheduleObservationConvention}.
		 * @param convention the convention, or {@code null} for the default
		 * @return this builder
		 */
		public Builder scheduleObservationConvention(@Nullable RedeqScheduleObservationConvention convention) {
			this.scheduleConvention = convention;
			return this;
		}

		/**
		 * Replaces the naming and tags of handler observations; the default is
		 * {@link DefaultRedeqProcessObservationConvention}.
		 * @param convention the convention, or {@code null} for the default
		 * @return this builder
		 */
		public Builder processObservationConvention(@Nullable RedeqProcessObservationConvention convention) {
			this.processConvention = convention;
			return this;
		}

		/**
		 * Adds a listener told about every job outcome.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder lifecycleListener(JobLifecycleListener listener) {
			this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
			return this;
		}

		/**
		 * This instance's id in Redis (lock owner, claim tokens); generated when not set.
		 * @param instanceId the id
		 * @return this builder
		 */
		public Builder instanceId(String instanceId) {
			if (instanceId == null || instanceId.isBlank() || instanceId.contains(":")) {
				throw new IllegalArgumentException("instanceId must be non-blank without ':', but was " + instanceId);
			}
			this.instanceId = instanceId;
			return this;
		}

		/**
		 * Whether {@link #build()} also {@link Redeq#start() starts} the engine (default
		 * true). Off, the built engine writes nothing to Redis until its owner starts it:
		 * the Spring Boot starter does so from its lifecycle.
		 * @param autoStartup whether to start
		 * @return this builder
		 */
		public Builder autoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
			return this;
		}

		/**
		 * Whether the built engine registers a JVM shutdown hook that
		 * {@link Redeq#close() closes} it (default false): on SIGTERM, Ctrl-C or
		 * {@code System.exit} it stops claiming jobs, lets running handlers finish within
		 * {@code shutdown-timeout}, and hands the unfinished ones back to READY at once,
		 * instead of leaving them IN_FLIGHT until their lease expires. For applications
		 * without Spring, whose context closes the engine itself; closing the engine
		 * removes the hook. Keep the Lettuce client open until the engine is closed: a
		 * hook of your own that shuts the client down can run at the same time as this
		 * one (the JVM starts every hook at once), and the hand-back then fails.
		 * @param shutdownHook whether to register the hook
		 * @return this builder
		 * @since 0.1.0
		 */
		public Builder shutdownHook(boolean shutdownHook) {
			this.shutdownHook = shutdownHook;
			return this;
		}

		String instanceId() {
			if (this.instanceId == null) {
				// In containers every process may be pid 1: the random part alone must
				// keep ids (and so claim tokens and lock owners) apart.
				this.instanceId = ProcessHandle.current().pid() + "-"
						+ UUID.randomUUID().toString().replace("-", "").substring(0, 12);
			}
			return this.instanceId;
		}

		/**
		 * The settings as they stand.
		 * @return the options
		 */
		public RedeqOptions options() {
			return buildOptions();
		}

		/**
		 * Moves every job of this prefix from the bucket count recorded in Redis to the
		 * configured {@link #buckets(int) buckets}, then records the new count, as
		 * {@link RedeqAdmin#changeBucketCount(int)} does, also while instances run: they
		 * follow the new count once it is recorded, and instances started afterwards
		 * start on it. Interrupted, it can simply run again: each job is copied before it
		 * is removed, so nothing is lost.
		 * @return the number of jobs moved to another bucket
		 */
		public long reshard() {
			RedeqOptions options = options();
			return Resharder.reshard(this.client, options.prefix(), options.buckets(), options.commandTimeout());
		}

		/**
		 * The settings of each topic's polled jobs ({@link RedeqClient#poll}): the
		 * timeout that is their lease, max attempts, backoff and rate limit, unset ones
		 * the engine's (the default for every topic); and the exception classes, by fully
		 * qualified name, whose failures make a polled job DEAD at once, as
		 * {@link NotRetryableException} does (none by default). The Spring Boot starter
		 * passes {@code redeq.topics.<topic>.*} and {@code redeq.consumer.not-retryable}
		 * here, so polled jobs follow the settings a listener of the topic gets from
		 * configuration.
		 * @param options a topic's settings, asked once, at the topic's first poll
		 * @param notRetryable a topic's not-retryable exception class names, asked once
		 * @return this builder
		 * @since 0.1.0
		 */
		public Builder pollSettings(Function<String, SubscriptionOptions> options,
				Function<String, Set<String>> notRetryable) {
			this.pollOptions = Objects.requireNonNull(options, "options must not be null");
			this.pollNotRetryable = Objects.requireNonNull(notRetryable, "notRetryable must not be null");
			return this;
		}

		/**
		 * Internal, no part of the contract (it may change): when Redis records another
		 * bucket count for the prefix than the one configured, takes the recorded one and
		 * logs that once, so that an instance started after
		 * {@link RedeqAdmin#changeBucketCount(int) a change of the count} follows the
		 * stored layout whatever its configuration says. Only reads Redis. When Redis
		 * cannot be reached, the configured count stays and {@link Redeq#start()} checks
		 * it against the recorded one once Redis answers. {@link #build()} calls it when
		 * {@link #autoStartup(boolean) autoStartup} is on; the Spring Boot starter calls
		 * it before building.
		 * @return this builder
		 */
		public Builder followRecordedBucketCount() {
			RedeqOptions options = options();
			try (RedisConnections connections = new RedisConnections(this.client)) {
				ScriptRunner scripts = new ScriptRunner(connections, options.commandTimeout());
				int[] layout = new JobQueries(new KeySpace(options.prefix(), 1), scripts).readBucketLayout();
				int recorded = layout[0];
				if (recorded != 0 && recorded != options.buckets() && layout[1] == 0) {
					logger.warn("redeq prefix '{}' is laid out in {} buckets in Redis; this instance is configured "
							+ "with {} (redeq.buckets) and follows the {} recorded in Redis. Set redeq.buckets={} "
							+ "to match.", options.prefix(), recorded, options.buckets(), recorded, recorded);
					buckets(recorded);
				}
			}
			catch (RedeqUnavailableException ex) {
				logger.debug("Could not read the bucket count of prefix '{}' before starting: {}", options.prefix(),
						ex.getMessage());
			}
			return this;
		}

		/**
		 * Builds and, unless {@link #autoStartup(boolean) autoStartup} is off, starts the
		 * engine (its migrator runs at once; consumers start on subscribe); with
		 * {@link #shutdownHook(boolean) shutdownHook} on, registers the hook that closes
		 * it. Started at once, it follows the bucket count Redis records for the prefix
		 * when that differs from the configured one (see
		 * {@link #followRecordedBucketCount()}).
		 * @return the engine
		 * @throws BucketCountMismatchException if Redis could not be read before the
		 * engine was built and records another bucket count for the prefix once it is
		 * @throws IllegalStateException if {@link #shutdownHook(boolean) shutdownHook} is
		 * on and the JVM is shutting down already
		 */
		public Redeq build() {
			if (this.autoStartup) {
				followRecordedBucketCount();
			}
			Redeq redeq = new Redeq(this, options());
			try {
				if (this.shutdownHook) {
					redeq.registerShutdownHook();
				}
				if (this.autoStartup) {
					redeq.start();
				}
			}
			catch (RuntimeException ex) {
				redeq.close();
				throw ex;
			}
			return redeq;
		}

	}

}
