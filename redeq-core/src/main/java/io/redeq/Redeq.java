package io.redeq;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import io.lettuce.core.AbstractRedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.ObjectMapper;

import io.redeq.admin.QueueAdmin;
import io.redeq.codec.JacksonPayloadCodec;
import io.redeq.codec.PayloadCodec;
import io.redeq.consumer.ConsumerContext;
import io.redeq.consumer.ConsumerSettings;
import io.redeq.consumer.TopicConsumer;
import io.redeq.internal.JobEvents;
import io.redeq.internal.Validate;
import io.redeq.metrics.MicrometerJobEvents;
import io.redeq.metrics.SnapshotRefresher;
import io.redeq.migrator.Migrator;
import io.redeq.redis.FormatUpgrade;
import io.redeq.redis.JobQueries;
import io.redeq.redis.KeySpace;
import io.redeq.redis.RedisConnections;
import io.redeq.redis.RedisJobStore;
import io.redeq.redis.Resharder;
import io.redeq.redis.ScriptRunner;
import io.redeq.schedule.JobScheduler;
import io.redeq.schedule.WakeUps;

// Over 300 lines because of its nested Builder (one documented setter per configuration
// key, about half the file): Redeq.builder(...) returning Redeq.Builder is fixed API
// (CONTRACT.md). The engine itself is about 300 lines.
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
 * @since 0.1.0
 */
public final class Redeq implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(Redeq.class);

	private final RedeqOptions options;

	private final String instanceId;

	private final RedisConnections connections;

	private final RedisJobStore store;

	private final JobQueries queries;

	private final PayloadCodec codec;

	private final @Nullable Migrator migrator;

	private final WakeUps wakeUps;

	private final JobScheduler client;

	private final QueueAdmin admin;

	private final JobEvents events;

	private final List<JobLifecycleListener> listeners;

	private final ScheduledExecutorService timers;

	/**
	 * Its own thread: a refresh waits on Redis, and must never delay a lease renewal or a
	 * timeout.
	 */
	private final ScheduledExecutorService statsTimer;

	private final Map<String, TopicConsumer> subscriptions = new ConcurrentHashMap<>();

	private final SnapshotRefresher snapshots;

	private final boolean metered;

	private final Object lifecycle = new Object();

	/** Guarded by {@link #lifecycle}. */
	private boolean started;

	private volatile boolean closed;

	/**
	 * Builds the parts, without a Redis command or a thread: an engine that is never
	 * {@link #start() started} leaves Redis as it found it.
	 */
	private Redeq(Builder builder, RedeqOptions options) {
		this.options = options;
		this.instanceId = builder.instanceId();
		this.connections = new RedisConnections(builder.client);
		ScriptRunner scripts = new ScriptRunner(this.connections, options.commandTimeout());
		KeySpace keys = new KeySpace(options.prefix(), options.buckets());
		this.store = new RedisJobStore(keys, scripts);
		this.queries = new JobQueries(keys, scripts);
		this.codec = new JacksonPayloadCodec(builder.payloadMapper);
		MicrometerJobEvents meters = (builder.meterRegistry != null) ? new MicrometerJobEvents(builder.meterRegistry)
				: null;
		this.events = (meters != null) ? meters : JobEvents.NONE;
		this.listeners = List.copyOf(builder.listeners);
		this.migrator = options.migratorEnabled() ? new Migrator(this.store, options, this.instanceId, this.events)
				: null;
		this.wakeUps = (this.migrator != null) ? this.migrator
				: (bucket, dueAt) -> this.store.publishWake(bucket, dueAt).exceptionally((ex) -> 0L);
		this.client = new JobScheduler(this.store, this.codec, options, this.wakeUps, this.events);
		this.admin = new QueueAdmin(this.store, this.queries, () -> {
		});
		ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "redeq-timers-" + options.prefix());
			thread.setDaemon(true);
			return thread;
		});
		// Every job sets a handler timeout and cancels it when done: without this a
		// drained backlog leaves one cancelled task per job queued until its time comes.
		timers.setRemoveOnCancelPolicy(true);
		this.timers = timers;
		this.statsTimer = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "redeq-stats-" + options.prefix());
			thread.setDaemon(true);
			return thread;
		});
		this.snapshots = new SnapshotRefresher(this.store, this.statsTimer, options.statsRefreshInterval(),
				() -> java.util.Arrays.stream(ownedBuckets()).boxed().toList(), this::subscribedTopics);
		this.metered = meters != null;
		if (meters != null) {
			this.snapshots.onRefresh(meters::update);
		}
	}

	/**
	 * Starts building an engine on a Lettuce {@code RedisClient} or
	 * {@code RedisClusterClient} that the caller owns and closes.
	 */
	public static Builder builder(AbstractRedisClient client) {
		return new Builder(client);
	}

	/**
	 * Starts the engine, unless it runs already: records the bucket count for the prefix
	 * (or refuses one that differs from the recorded count) and converts jobs of redeq's
	 * first data format, then starts the migrator and, with a meter registry, the
	 * background refresh of the {@link #snapshot() snapshot}. {@link Builder#build()}
	 * calls it unless {@link Builder#autoStartup(boolean) autoStartup} is off; the Spring
	 * Boot starter calls it from its lifecycle, so that no bean creation writes to Redis.
	 * Scheduling and subscribing work before it, but only against a bucket count nothing
	 * has checked yet.
	 * @throws BucketCountMismatchException if Redis records another bucket count for the
	 * prefix; the engine then stays stopped
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
			if (this.migrator != null) {
				this.migrator.start();
			}
			if (this.metered) {
				this.snapshots.latest();
			}
		}
	}

	/**
	 * Refuses a bucket count that differs from the one recorded for the prefix. When
	 * Redis cannot be reached yet, the engine starts anyway (an application must survive
	 * Redis starting after it).
	 */
	private void checkBucketCount() {
		try {
			int recorded = this.queries.recordOrReadBucketCount(this.options.buckets());
			if (recorded != this.options.buckets()) {
				throw new BucketCountMismatchException(this.options.prefix(), recorded, this.options.buckets());
			}
			new FormatUpgrade(this.store.keys(), this.store.scripts()).run();
		}
		catch (RedeqUnavailableException ex) {
			logger.warn("redeq starts without Redis ({}); scheduling fails with RedeqUnavailableException and "
					+ "consumers wait until Redis answers", ex.getMessage());
		}
	}

	public RedeqClient client() {
		return this.client;
	}

	public RedeqAdmin admin() {
		return this.admin;
	}

	public RedeqOptions options() {
		return this.options;
	}

	/** This engine's id in Redis: bucket lock owner and claim token prefix. */
	public String instanceId() {
		return this.instanceId;
	}

	/** Buckets whose due jobs this instance migrates right now. */
	public int[] ownedBuckets() {
		return (this.migrator != null) ? this.migrator.ownedBuckets() : new int[0];
	}

	/**
	 * What this engine last saw of its queues: counts per topic, migration lag, how long
	 * READY jobs wait, owned buckets. Refreshed in the background every
	 * {@code stats-refresh-interval}, so calling it often costs no Redis call; the first
	 * call starts the refresh.
	 */
	public RedeqSnapshot snapshot() {
		return this.snapshots.latest();
	}

	/**
	 * Takes a fresh snapshot now (one read per bucket); for health checks that must not
	 * be stale.
	 */
	public RedeqSnapshot refreshSnapshot() {
		this.snapshots.latest();
		return this.snapshots.refresh();
	}

	/** Topics with a running subscription in this engine. */
	public java.util.Set<String> subscribedTopics() {
		return java.util.Set.copyOf(this.subscriptions.keySet());
	}

	/** Consumes a topic with the engine's default settings. */
	public <T> Subscription subscribe(String topic, Class<T> payloadType, JobHandler<T> handler) {
		return subscribe(topic, (Type) payloadType, handler, SubscriptionOptions.defaults());
	}

	public <T> Subscription subscribe(String topic, Class<T> payloadType, JobHandler<T> handler,
			SubscriptionOptions options) {
		return subscribe(topic, (Type) payloadType, handler, options);
	}

	/**
	 * Consumes a topic whose payload has a generic type such as {@code List<Item>}; the
	 * handler receives values of {@code payloadType}.
	 */
	public <T> Subscription subscribe(String topic, Type payloadType, JobHandler<T> handler) {
		return subscribe(topic, payloadType, handler, SubscriptionOptions.defaults());
	}

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
				subscriptionOptions.lease(timeout), subscriptionOptions.backoff(this.options));
		ConsumerContext context = new ConsumerContext(this.store, this.codec, this.options, this.events, this.listeners,
				this.wakeUps, this.timers, this.instanceId);
		TopicConsumer[] created = new TopicConsumer[1];
		TopicConsumer consumer = this.subscriptions.computeIfAbsent(topic, (t) -> {
			created[0] = new TopicConsumer(settings, (JobHandler<Object>) handler, context,
					() -> this.subscriptions.remove(t, created[0]));
			return created[0];
		});
		if (consumer != created[0]) {
			throw new IllegalStateException("Topic '" + topic
					+ "' already has a subscription in this redeq engine; a topic has one handler per application. Close it first");
		}
		consumer.start();
		return consumer;
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
		List<Thread> closing = new ArrayList<>();
		for (TopicConsumer consumer : this.subscriptions.values()) {
			Thread thread = new Thread(consumer::close, "redeq-close-" + consumer.topic());
			thread.start();
			closing.add(thread);
		}
		for (Thread thread : closing) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (this.migrator != null) {
			this.migrator.close();
		}
		this.timers.shutdownNow();
		this.statsTimer.shutdownNow();
		this.connections.close();
	}

	/**
	 * Builder of {@link Redeq}; one setter per configuration key, named after it.
	 * Defaults are those of the Spring Boot starter's {@code redeq.*} keys.
	 */
	public static final class Builder {

		private final AbstractRedisClient client;

		private String prefix = "redeq";

		private int buckets = 16;

		private long maxPending = 1_000_000;

		private long maxPayloadSize = 512 * 1024;

		private boolean migratorEnabled = true;

		private int batchSize = 1000;

		private Duration sweepInterval = Duration.ofSeconds(1);

		private Duration lockTtl = Duration.ofSeconds(10);

		private int concurrency = 1;

		private Duration timeout = Duration.ofMinutes(5);

		private int maxAttempts = 3;

		private Backoff backoff = Backoff.DEFAULT;

		private boolean blocking = true;

		private Duration pollInterval = Duration.ofSeconds(5);

		private Duration shutdownTimeout = Duration.ofSeconds(20);

		private Duration deadLetterRetention = Duration.ofDays(7);

		private Duration commandTimeout = Duration.ofSeconds(10);

		private @Nullable ObjectMapper payloadMapper;

		private @Nullable MeterRegistry meterRegistry;

		private Duration statsRefreshInterval = Duration.ofSeconds(5);

		private int waitReplicas = 0;

		private Duration waitTimeout = RedeqOptions.DEFAULT_WAIT_TIMEOUT;

		private @Nullable String instanceId;

		private final List<JobLifecycleListener> listeners = new ArrayList<>();

		private boolean autoStartup = true;

		private Builder(AbstractRedisClient client) {
			this.client = Objects.requireNonNull(client, "Lettuce client must not be null");
		}

		/** Namespace of every Redis key ({@code redeq.prefix}). */
		public Builder prefix(String prefix) {
			if (prefix == null || !prefix.matches("[A-Za-z0-9._\\-]{1,50}")) {
				throw new IllegalArgumentException(
						"redeq.prefix must be 1 to 50 characters from A-Z a-z 0-9 . _ -, but was "
								+ ((prefix != null) ? "'" + prefix + "'" : "null"));
			}
			this.prefix = prefix;
			return this;
		}

		/** Number of buckets, a power of two ({@code redeq.buckets}). */
		public Builder buckets(int buckets) {
			this.buckets = Validate.powerOfTwo("redeq.buckets", buckets, RedeqOptions.MAX_BUCKETS);
			return this;
		}

		/** Pending jobs a topic may hold, 0 for unlimited ({@code redeq.max-pending}). */
		public Builder maxPending(long maxPending) {
			this.maxPending = Validate.atLeast("redeq.max-pending", maxPending, 0);
			return this;
		}

		/** Largest payload in bytes of JSON ({@code redeq.max-payload-size}). */
		public Builder maxPayloadSize(long bytes) {
			this.maxPayloadSize = Validate.atLeast("redeq.max-payload-size", bytes, 1);
			return this;
		}

		/** Whether this instance migrates due jobs ({@code redeq.migrator.enabled}). */
		public Builder migratorEnabled(boolean enabled) {
			this.migratorEnabled = enabled;
			return this;
		}

		/** Jobs moved per migration call ({@code redeq.migrator.batch-size}). */
		public Builder batchSize(int batchSize) {
			if (batchSize < 1 || batchSize > 5000) {
				throw new IllegalArgumentException(
						"redeq.migrator.batch-size must be between 1 and 5000, but was " + batchSize);
			}
			this.batchSize = batchSize;
			return this;
		}

		/** Safety wake-up of each bucket ({@code redeq.migrator.sweep-interval}). */
		public Builder sweepInterval(Duration sweepInterval) {
			this.sweepInterval = Validate.positive("redeq.migrator.sweep-interval", sweepInterval);
			return this;
		}

		/** Lease of a migrator's bucket lock ({@code redeq.migrator.lock-ttl}). */
		public Builder lockTtl(Duration lockTtl) {
			Validate.positive("redeq.migrator.lock-ttl", lockTtl);
			if (lockTtl.toMillis() < 300) {
				throw new IllegalArgumentException(
						"redeq.migrator.lock-ttl must be at least 300ms, but was " + lockTtl);
			}
			this.lockTtl = lockTtl;
			return this;
		}

		/** Default handlers per subscription ({@code redeq.consumer.concurrency}). */
		public Builder concurrency(int concurrency) {
			this.concurrency = Validate.atLeast("redeq.consumer.concurrency", concurrency, 1);
			return this;
		}

		/** Default lease and handler timeout ({@code redeq.consumer.timeout}). */
		public Builder timeout(Duration timeout) {
			this.timeout = Validate.positive("redeq.consumer.timeout", timeout);
			return this;
		}

		/** Default deliveries before DEAD ({@code redeq.consumer.max-attempts}). */
		public Builder maxAttempts(int maxAttempts) {
			this.maxAttempts = Validate.atLeast("redeq.consumer.max-attempts", maxAttempts, 1);
			return this;
		}

		/** Default backoff between attempts ({@code redeq.consumer.backoff.*}). */
		public Builder backoff(Backoff backoff) {
			this.backoff = Objects.requireNonNull(backoff, "backoff must not be null");
			return this;
		}

		/**
		 * Whether idle consumers block in Redis with BLPOP
		 * ({@code redeq.consumer.blocking}).
		 */
		public Builder blocking(boolean blocking) {
			this.blocking = blocking;
			return this;
		}

		/**
		 * Longest idle wait before a consumer checks the ready lists itself
		 * ({@code redeq.consumer.poll-interval}).
		 */
		public Builder pollInterval(Duration pollInterval) {
			this.pollInterval = Validate.positive("redeq.consumer.poll-interval", pollInterval);
			return this;
		}

		/**
		 * How long closing waits for running handlers ({@code redeq.shutdown-timeout}).
		 */
		public Builder shutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = Validate.positiveOrZero("redeq.shutdown-timeout", shutdownTimeout);
			return this;
		}

		/** How long dead jobs are kept ({@code redeq.dead-letter.retention}). */
		public Builder deadLetterRetention(Duration retention) {
			this.deadLetterRetention = Validate.positive("redeq.dead-letter.retention", retention);
			return this;
		}

		/**
		 * How long a call waits for Redis before RedeqUnavailableException
		 * ({@code redeq.command-timeout}).
		 */
		public Builder commandTimeout(Duration commandTimeout) {
			this.commandTimeout = Validate.positive("redeq.command-timeout", commandTimeout);
			return this;
		}

		/** The Jackson mapper for payloads; a plain JsonMapper when not set. */
		public Builder payloadMapper(@Nullable ObjectMapper mapper) {
			this.payloadMapper = mapper;
			return this;
		}

		/** Where redeq records its meters; none means no metrics and no cost. */
		public Builder meterRegistry(@Nullable MeterRegistry registry) {
			this.meterRegistry = registry;
			return this;
		}

		/**
		 * How often the background snapshot behind gauges and health is refreshed
		 * ({@code redeq.stats-refresh-interval}); one read-only script per bucket each
		 * time.
		 */
		public Builder statsRefreshInterval(Duration interval) {
			this.statsRefreshInterval = Validate.positive("redeq.stats-refresh-interval", interval);
			return this;
		}

		/**
		 * Replicas that must acknowledge each scheduled job before {@code schedule}
		 * returns ({@code redeq.durability.wait-replicas}). After the schedule script,
		 * redeq sends Redis {@code WAIT n timeout} on the connection of the node that ran
		 * it, and throws {@link RedeqUnavailableException} when fewer replicas
		 * acknowledged in time (the job was written, but a failover now could lose it;
		 * scheduling it again under the same id is safe). 0, the default, does not wait:
		 * replication is asynchronous, and a master that fails before its replica copied
		 * a job loses it.
		 */
		public Builder waitReplicas(int replicas) {
			this.waitReplicas = Validate.atLeast("redeq.durability.wait-replicas", replicas, 0);
			return this;
		}

		/**
		 * Longest wait for {@link #waitReplicas(int) replicas}
		 * ({@code redeq.durability.wait-timeout}).
		 */
		public Builder waitTimeout(Duration waitTimeout) {
			this.waitTimeout = Validate.positive("redeq.durability.wait-timeout", waitTimeout);
			return this;
		}

		/** Adds a listener told about every job outcome. */
		public Builder lifecycleListener(JobLifecycleListener listener) {
			this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
			return this;
		}

		/**
		 * This instance's id in Redis (lock owner, claim tokens); generated when not set.
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
		 */
		public Builder autoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
			return this;
		}

		String instanceId() {
			if (this.instanceId == null) {
				// In containers every process may be pid 1: the random part alone must
				// keep
				// ids (and so claim tokens and lock owners) apart.
				this.instanceId = ProcessHandle.current().pid() + "-"
						+ java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 12);
			}
			return this.instanceId;
		}

		public RedeqOptions options() {
			return new RedeqOptions(this.prefix, this.buckets, this.maxPending, this.maxPayloadSize,
					this.migratorEnabled, this.batchSize, this.sweepInterval, this.lockTtl, this.concurrency,
					this.timeout, this.maxAttempts, this.backoff, this.blocking, this.pollInterval,
					this.shutdownTimeout, this.deadLetterRetention, this.commandTimeout, this.statsRefreshInterval,
					this.waitReplicas, this.waitTimeout);
		}

		/**
		 * Moves every job of this prefix from the bucket count recorded in Redis to the
		 * configured {@link #buckets(int) buckets}, then records the new count. Run it
		 * with every instance stopped (they refuse to start while counts differ).
		 * Interrupted, it can simply run again: each job is copied before it is removed,
		 * so nothing is lost.
		 * @return the number of jobs moved to another bucket
		 */
		public long reshard() {
			RedeqOptions options = options();
			try (RedisConnections connections = new RedisConnections(this.client)) {
				ScriptRunner scripts = new ScriptRunner(connections, options.commandTimeout());
				KeySpace target = new KeySpace(options.prefix(), options.buckets());
				JobQueries queries = new JobQueries(target, scripts);
				int recorded = queries.recordOrReadBucketCount(options.buckets());
				if (recorded == options.buckets()) {
					return 0;
				}
				new FormatUpgrade(new KeySpace(options.prefix(), recorded), scripts).run();
				long moved = new Resharder(new KeySpace(options.prefix(), recorded), target, scripts).moveAll();
				queries.recordBucketCount(options.buckets());
				return moved;
			}
		}

		/**
		 * Builds and, unless {@link #autoStartup(boolean) autoStartup} is off, starts the
		 * engine (its migrator runs at once; consumers start on subscribe).
		 * @throws BucketCountMismatchException if Redis records another bucket count for
		 * the prefix
		 */
		public Redeq build() {
			Redeq redeq = new Redeq(this, options());
			if (this.autoStartup) {
				try {
					redeq.start();
				}
				catch (RuntimeException ex) {
					redeq.close();
					throw ex;
				}
			}
			return redeq;
		}

	}

}
