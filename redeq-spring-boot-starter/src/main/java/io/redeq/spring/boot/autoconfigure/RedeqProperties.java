package io.redeq.spring.boot.autoconfigure;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

import io.redeq.Recurring;
import io.redeq.RedeqOptions;

/**
 * Configuration properties of redeq ({@code redeq.*}). The Redis connection itself is
 * Spring Boot's ({@code spring.data.redis.*}).
 *
 * <p>
 * The engine's settings start from the {@link RedeqOptions} {@code DEFAULT_*} constants,
 * so a default exists once. Spring Boot's annotation processor cannot read a constant of
 * another class, so {@code additional-spring-configuration-metadata.json} states those
 * defaults for IDEs, and {@code RedeqPropertiesTests} checks that it tells the truth.
 *
 * <p>
 * One class because Spring Boot binds the {@code redeq.*} tree to it: each group of
 * properties is a nested class here, one per prefix.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("redeq")
public class RedeqProperties {

	// Long, as Boot's own *Properties classes are: one JavaBean tree per key
	// prefix, nested groups as static inner classes, each field with the Javadoc that
	// becomes its IDE description and a getter and setter the binder needs.

	/**
	 * Whether to enable redeq.
	 */
	private boolean enabled = true;

	/**
	 * Namespace of every Redis key redeq writes; applications sharing a prefix share
	 * queues.
	 */
	private String prefix = RedeqOptions.DEFAULT_PREFIX;

	/**
	 * Number of buckets the delay index is split into; a power of two. Used by the first
	 * instance of the prefix; once Redis records a count, every instance follows the
	 * recorded one (changed with RedeqAdmin.changeBucketCount).
	 */
	private int buckets = RedeqOptions.DEFAULT_BUCKETS;

	/**
	 * Maximum number of pending jobs per topic, 0 for unlimited; scheduling beyond it
	 * throws CapacityExceededException.
	 */
	private long maxPending = RedeqOptions.DEFAULT_MAX_PENDING;

	/**
	 * Largest payload, as serialized JSON.
	 */
	private DataSize maxPayloadSize = DataSize.ofBytes(RedeqOptions.DEFAULT_MAX_PAYLOAD_SIZE);

	/**
	 * Whether jobs scheduled, cancelled or rescheduled inside a Spring transaction are
	 * sent only when it commits (and dropped when it rolls back).
	 */
	private boolean transactional = true;

	/**
	 * Time to wait for running handlers to finish when the application shuts down.
	 */
	private Duration shutdownTimeout = RedeqOptions.DEFAULT_SHUTDOWN_TIMEOUT;

	/**
	 * Time a call waits for Redis before it fails with RedeqUnavailableException.
	 */
	private Duration commandTimeout = RedeqOptions.DEFAULT_COMMAND_TIMEOUT;

	/**
	 * How often the background snapshot of queue counts, migration lag and READY wait
	 * times is refreshed; gauges, the health indicator and the actuator endpoint read it
	 * instead of Redis. Each refresh costs one read-only script per bucket.
	 */
	private Duration statsRefreshInterval = RedeqOptions.DEFAULT_STATS_REFRESH_INTERVAL;

	private final Migrator migrator = new Migrator();

	private final Consumer consumer = new Consumer();

	private final DeadLetter deadLetter = new DeadLetter();

	private final Durability durability = new Durability();

	private final Health health = new Health();

	private final Redis redis = new Redis();

	private final Observation observation = new Observation();

	private final Dashboard dashboard = new Dashboard();

	private final Journal journal = new Journal();

	/**
	 * Per-topic overrides of the consumer.* settings, keyed by topic name: concurrency,
	 * timeout, max-attempts and backoff.*; unset ones fall back to redeq.consumer.*.
	 */
	private Map<String, Topic> topics = new LinkedHashMap<>();

	/**
	 * Recurring jobs declared at every startup, keyed by their id (the job id of each
	 * occurrence); declaring the same one again changes nothing.
	 */
	private Map<String, RecurringJob> recurring = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getPrefix() {
		return this.prefix;
	}

	public void setPrefix(String prefix) {
		this.prefix = prefix;
	}

	public int getBuckets() {
		return this.buckets;
	}

	public void setBuckets(int buckets) {
		this.buckets = buckets;
	}

	public long getMaxPending() {
		return this.maxPending;
	}

	public void setMaxPending(long maxPending) {
		this.maxPending = maxPending;
	}

	public DataSize getMaxPayloadSize() {
		return this.maxPayloadSize;
	}

	public void setMaxPayloadSize(DataSize maxPayloadSize) {
		this.maxPayloadSize = maxPayloadSize;
	}

	public boolean isTransactional() {
		return this.transactional;
	}

	public void setTransactional(boolean transactional) {
		this.transactional = transactional;
	}

	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	public Duration getCommandTimeout() {
		return this.commandTimeout;
	}

	public void setCommandTimeout(Duration commandTimeout) {
		this.commandTimeout = commandTimeout;
	}

	public Duration getStatsRefreshInterval() {
		return this.statsRefreshInterval;
	}

	public void setStatsRefreshInterval(Duration statsRefreshInterval) {
		this.statsRefreshInterval = statsRefreshInterval;
	}

	public Health getHealth() {
		return this.health;
	}

	public Redis getRedis() {
		return this.redis;
	}

	public Observation getObservation() {
		return this.observation;
	}

	public Dashboard getDashboard() {
		return this.dashboard;
	}

	public Journal getJournal() {
		return this.journal;
	}

	public Migrator getMigrator() {
		return this.migrator;
	}

	public Consumer getConsumer() {
		return this.consumer;
	}

	public DeadLetter getDeadLetter() {
		return this.deadLetter;
	}

	public Durability getDurability() {
		return this.durability;
	}

	public Map<String, Topic> getTopics() {
		return this.topics;
	}

	public void setTopics(Map<String, Topic> topics) {
		this.topics = topics;
	}

	public Map<String, RecurringJob> getRecurring() {
		return this.recurring;
	}

	public void setRecurring(Map<String, RecurringJob> recurring) {
		this.recurring = recurring;
	}

	/**
	 * Settings of the migrator, which moves due jobs from the buckets to the ready
	 * queues.
	 */
	public static class Migrator {

		/**
		 * Whether this instance migrates due jobs; at least one instance must.
		 */
		private boolean enabled = RedeqOptions.DEFAULT_MIGRATOR_ENABLED;

		/**
		 * Maximum number of jobs moved per migration call.
		 */
		private int batchSize = RedeqOptions.DEFAULT_BATCH_SIZE;

		/**
		 * Longest time a bucket goes unchecked; a safety net, since wake-ups are
		 * event-driven.
		 */
		private Duration sweepInterval = RedeqOptions.DEFAULT_SWEEP_INTERVAL;

		/**
		 * Lease of a bucket lock; a dead instance's buckets are taken over within it.
		 */
		private Duration lockTtl = RedeqOptions.DEFAULT_LOCK_TTL;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

		public Duration getSweepInterval() {
			return this.sweepInterval;
		}

		public void setSweepInterval(Duration sweepInterval) {
			this.sweepInterval = sweepInterval;
		}

		public Duration getLockTtl() {
			return this.lockTtl;
		}

		public void setLockTtl(Duration lockTtl) {
			this.lockTtl = lockTtl;
		}

	}

	/**
	 * Default settings of listeners.
	 */
	public static class Consumer {

		/**
		 * Whether @RedeqListener methods run in this application; when disabled the
		 * application only schedules jobs.
		 */
		private boolean enabled = true;

		/**
		 * Number of handlers of one listener that may run at once in this instance.
		 */
		private int concurrency = RedeqOptions.DEFAULT_CONCURRENCY;

		/**
		 * Jobs one listener may claim beyond its concurrency, each started as soon as a
		 * handler is free: leased like running jobs, used only while handlers finish
		 * within about 50 ms on average and only as many as they finish in about 10 ms
		 * (at least the concurrency), handed back to READY at once on shutdown. 0 claims
		 * only into free handlers. It has no default value: unset, it is 64 times the
		 * listener's concurrency.
		 */
		private @Nullable Integer prefetch;

		/**
		 * Handler timeout and lease of an in-flight job.
		 */
		private Duration timeout = RedeqOptions.DEFAULT_TIMEOUT;

		/**
		 * Maximum number of deliveries before a failing job is dead.
		 */
		private int maxAttempts = RedeqOptions.DEFAULT_MAX_ATTEMPTS;

		/**
		 * Fully qualified names of exception classes that send a failing job of a
		 * listener to DEAD at once, as io.redeq.NotRetryableException does (subclasses
		 * too, also as the cause of what the listener threw).
		 */
		private List<String> notRetryable = new ArrayList<>();

		/**
		 * Whether idle consumers wait in Redis with BLPOP; ignored (never blocking) when
		 * redis.proxy-mode is enabled.
		 */
		private boolean blocking = RedeqOptions.DEFAULT_BLOCKING;

		/**
		 * Longest wait of an idle consumer before it checks the ready queues itself.
		 */
		private Duration pollInterval = RedeqOptions.DEFAULT_POLL_INTERVAL;

		private final Backoff backoff = new Backoff();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(int concurrency) {
			this.concurrency = concurrency;
		}

		public @Nullable Integer getPrefetch() {
			return this.prefetch;
		}

		public void setPrefetch(@Nullable Integer prefetch) {
			this.prefetch = prefetch;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public boolean isBlocking() {
			return this.blocking;
		}

		public void setBlocking(boolean blocking) {
			this.blocking = blocking;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			this.pollInterval = pollInterval;
		}

		public Backoff getBackoff() {
			return this.backoff;
		}

		public List<String> getNotRetryable() {
			return this.notRetryable;
		}

		public void setNotRetryable(List<String> notRetryable) {
			this.notRetryable = notRetryable;
		}

	}

	/**
	 * Exponential backoff between the attempts of a failing job.
	 */
	public static class Backoff {

		/**
		 * Wait after the first failed attempt.
		 */
		private Duration initial = RedeqOptions.DEFAULT_BACKOFF.initial();

		/**
		 * Factor by which each further wait grows; at least 1.0.
		 */
		private double multiplier = RedeqOptions.DEFAULT_BACKOFF.multiplier();

		/**
		 * Longest wait between two attempts.
		 */
		private Duration max = RedeqOptions.DEFAULT_BACKOFF.max();

		/**
		 * Fraction of each wait added or removed at random, between 0.0 and 1.0, so that
		 * failed jobs do not all retry at once.
		 */
		private double jitter = RedeqOptions.DEFAULT_BACKOFF.jitter();

		public Duration getInitial() {
			return this.initial;
		}

		public void setInitial(Duration initial) {
			this.initial = initial;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMax() {
			return this.max;
		}

		public void setMax(Duration max) {
			this.max = max;
		}

		public double getJitter() {
			return this.jitter;
		}

		public void setJitter(double jitter) {
			this.jitter = jitter;
		}

	}

	/**
	 * Settings of dead jobs.
	 */
	public static class DeadLetter {

		/**
		 * How long dead jobs are kept for inspection and requeue.
		 */
		private Duration retention = RedeqOptions.DEFAULT_DEAD_LETTER_RETENTION;

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = retention;
		}

	}

	/**
	 * How sure a scheduled job is to survive a Redis master failover before schedule
	 * returns.
	 */
	public static class Durability {

		/**
		 * Number of replicas that must acknowledge each scheduled job before schedule
		 * returns (Redis WAIT, sent to the node that stored the job). 0 does not wait:
		 * replication is asynchronous, so a master failing right after a schedule can
		 * lose that job. With 1 or more, schedule throws RedeqUnavailableException when
		 * fewer replicas acknowledge within wait-timeout.
		 */
		private int waitReplicas = RedeqOptions.DEFAULT_WAIT_REPLICAS;

		/**
		 * Longest time schedule waits for wait-replicas replicas to acknowledge.
		 */
		private Duration waitTimeout = RedeqOptions.DEFAULT_WAIT_TIMEOUT;

		public int getWaitReplicas() {
			return this.waitReplicas;
		}

		public void setWaitReplicas(int waitReplicas) {
			this.waitReplicas = waitReplicas;
		}

		public Duration getWaitTimeout() {
			return this.waitTimeout;
		}

		public void setWaitTimeout(Duration waitTimeout) {
			this.waitTimeout = waitTimeout;
		}

	}

	/**
	 * How redeq uses the Redis connection that {@code spring.data.redis.*} configures.
	 */
	public static class Redis {

		/**
		 * Whether Redis is reached through a proxy that forbids pub/sub and blocking
		 * commands (Codis, Twemproxy, some managed services). When enabled, redeq sends
		 * no SUBSCRIBE, PUBLISH or blocking command (consumer.blocking is then ignored):
		 * migrators wake from their own timers and the sweep, consumers are woken by
		 * their own instance's migrator and otherwise poll.
		 */
		private boolean proxyMode = RedeqOptions.DEFAULT_PROXY_MODE;

		public boolean isProxyMode() {
			return this.proxyMode;
		}

		public void setProxyMode(boolean proxyMode) {
			this.proxyMode = proxyMode;
		}

	}

	/**
	 * Micrometer Observation (tracing) of scheduling and handling.
	 */
	public static class Observation {

		/**
		 * Whether scheduling and handler runs are observed with Micrometer Observation
		 * (needs an ObservationRegistry bean): each schedule stores the W3C trace context
		 * with its job, and the handler's span continues that trace.
		 */
		private boolean enabled = false;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Thresholds of the {@code redeq} health indicator.
	 */
	public static class Health {

		/**
		 * Longest time a due job may wait in the delay index before the health indicator
		 * reports DOWN: the migrators do not keep up, or none runs.
		 */
		private Duration migrationLagThreshold = Duration.ofSeconds(30);

		/**
		 * Longest time a READY job of a topic this instance listens to may wait for a
		 * handler before the health indicator reports DOWN: the consumers are stuck or
		 * too slow.
		 */
		private Duration readyWaitThreshold = Duration.ofSeconds(60);

		public Duration getMigrationLagThreshold() {
			return this.migrationLagThreshold;
		}

		public void setMigrationLagThreshold(Duration migrationLagThreshold) {
			this.migrationLagThreshold = migrationLagThreshold;
		}

		public Duration getReadyWaitThreshold() {
			return this.readyWaitThreshold;
		}

		public void setReadyWaitThreshold(Duration readyWaitThreshold) {
			this.readyWaitThreshold = readyWaitThreshold;
		}

	}

	/**
	 * Web dashboard of the queues, on Spring MVC (servlet) applications.
	 */
	public static class Dashboard {

		/**
		 * Whether to serve the web dashboard.
		 */
		private boolean enabled = false;

		/**
		 * Path the dashboard is served under.
		 */
		private String path = "/redeq";

		/**
		 * Whether to hide and refuse the dashboard's actions (cancel, requeue, purge).
		 */
		private boolean readOnly = false;

		/**
		 * Role a signed-in user needs for the dashboard's actions, whatever signs users
		 * in (checked with HttpServletRequest.isUserInRole); nobody signed in, no action.
		 */
		private String actionRole = "REDEQ_ADMIN";

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public String getPath() {
			return this.path;
		}

		public void setPath(String path) {
			this.path = path;
		}

		public boolean isReadOnly() {
			return this.readOnly;
		}

		public void setReadOnly(boolean readOnly) {
			this.readOnly = readOnly;
		}

		public String getActionRole() {
			return this.actionRole;
		}

		public void setActionRole(String actionRole) {
			this.actionRole = actionRole;
		}

	}

	/**
	 * A recurring job: the same meaning as {@code Recurring.builder(topic)}; set
	 * {@code cron} or {@code every}.
	 */
	public static class RecurringJob {

		/**
		 * Topic of its occurrences, run by that topic's listener.
		 */
		private @Nullable String topic;

		/**
		 * Cron expression in Spring's syntax (six fields: second minute hour day-of-month
		 * month day-of-week, or a macro such as @daily).
		 */
		private @Nullable String cron;

		/**
		 * Fixed period between ticks, instead of a cron expression; at least 1s.
		 */
		private @Nullable Duration every;

		/**
		 * Time zone the cron expression is read in.
		 */
		private ZoneId zone = ZoneOffset.UTC;

		/**
		 * Payload of each occurrence as JSON text, e.g. '{"name":"sales"}'.
		 */
		private @Nullable String payload;

		/**
		 * What happens to ticks that passed while no instance ran: RUN_ONCE runs one
		 * occurrence for all of them, SKIP drops those more than a minute late.
		 */
		private Recurring.Missed missed = Recurring.Missed.RUN_ONCE;

		public @Nullable String getTopic() {
			return this.topic;
		}

		public void setTopic(@Nullable String topic) {
			this.topic = topic;
		}

		public @Nullable String getCron() {
			return this.cron;
		}

		public void setCron(@Nullable String cron) {
			this.cron = cron;
		}

		public @Nullable Duration getEvery() {
			return this.every;
		}

		public void setEvery(@Nullable Duration every) {
			this.every = every;
		}

		public ZoneId getZone() {
			return this.zone;
		}

		public void setZone(ZoneId zone) {
			this.zone = zone;
		}

		public @Nullable String getPayload() {
			return this.payload;
		}

		public void setPayload(@Nullable String payload) {
			this.payload = payload;
		}

		public Recurring.Missed getMissed() {
			return this.missed;
		}

		public void setMissed(Recurring.Missed missed) {
			this.missed = missed;
		}

	}

	/**
	 * Overrides of the consumer.* settings for one topic; unset values fall back to them.
	 * Spring Boot's annotation processor does not describe the values of a map, so
	 * {@code additional-spring-configuration-metadata.json} lists these keys as
	 * {@code redeq.topics.*.<key>}, and {@code RedeqPropertiesTests} checks that it lists
	 * each of them.
	 */
	public static class Topic {

		/**
		 * Number of handlers of this topic's listener that may run at once in this
		 * instance.
		 */
		private @Nullable Integer concurrency;

		/**
		 * Handler timeout and lease of an in-flight job of this topic.
		 */
		private @Nullable Duration timeout;

		/**
		 * Maximum number of deliveries before a failing job of this topic is dead.
		 */
		private @Nullable Integer maxAttempts;

		/**
		 * Exception class names that send a failing job of this topic's listener to DEAD
		 * at once; replaces redeq.consumer.not-retryable for the topic.
		 */
		private @Nullable List<String> notRetryable;

		/**
		 * Most job starts of this topic per window across all instances, such as 100/1s
		 * (units ms, s, m, h, d); jobs beyond it wait READY. Unset means unlimited.
		 */
		private @Nullable String rateLimit;

		private final TopicBackoff backoff = new TopicBackoff();

		private final TopicForward forward = new TopicForward();

		public @Nullable Integer getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(@Nullable Integer concurrency) {
			this.concurrency = concurrency;
		}

		public @Nullable Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(@Nullable Duration timeout) {
			this.timeout = timeout;
		}

		public @Nullable Integer getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(@Nullable Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public @Nullable List<String> getNotRetryable() {
			return this.notRetryable;
		}

		public void setNotRetryable(@Nullable List<String> notRetryable) {
			this.notRetryable = notRetryable;
		}

		public @Nullable String getRateLimit() {
			return this.rateLimit;
		}

		public void setRateLimit(@Nullable String rateLimit) {
			this.rateLimit = rateLimit;
		}

		public TopicBackoff getBackoff() {
			return this.backoff;
		}

		public TopicForward getForward() {
			return this.forward;
		}

	}

	/**
	 * Where a topic's due jobs are published to RabbitMQ instead of running a listener;
	 * the topic is forwarded when either key is set.
	 */
	public static class TopicForward {

		/**
		 * Exchange this topic's due jobs are published to; the default exchange ("") when
		 * only routing-key is set.
		 */
		private @Nullable String exchange;

		/**
		 * Routing key this topic's due jobs are published with; "" when only exchange is
		 * set.
		 */
		private @Nullable String routingKey;

		public @Nullable String getExchange() {
			return this.exchange;
		}

		public void setExchange(@Nullable String exchange) {
			this.exchange = exchange;
		}

		public @Nullable String getRoutingKey() {
			return this.routingKey;
		}

		public void setRoutingKey(@Nullable String routingKey) {
			this.routingKey = routingKey;
		}

		/**
		 * Whether the topic is forwarded.
		 * @return true when the exchange or the routing key is set
		 */
		public boolean isConfigured() {
			return this.exchange != null || this.routingKey != null;
		}

	}

	/**
	 * Overrides of consumer.backoff.* for one topic; unset values fall back to them.
	 */
	public static class TopicBackoff {

		/**
		 * Wait after the first failed attempt.
		 */
		private @Nullable Duration initial;

		/**
		 * Factor by which each further wait grows; at least 1.0.
		 */
		private @Nullable Double multiplier;

		/**
		 * Longest wait between two attempts.
		 */
		private @Nullable Duration max;

		/**
		 * Fraction of each wait added or removed at random, between 0.0 and 1.0.
		 */
		private @Nullable Double jitter;

		public @Nullable Duration getInitial() {
			return this.initial;
		}

		public void setInitial(@Nullable Duration initial) {
			this.initial = initial;
		}

		public @Nullable Double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(@Nullable Double multiplier) {
			this.multiplier = multiplier;
		}

		public @Nullable Duration getMax() {
			return this.max;
		}

		public void setMax(@Nullable Duration max) {
			this.max = max;
		}

		public @Nullable Double getJitter() {
			return this.jitter;
		}

		public void setJitter(@Nullable Double jitter) {
			this.jitter = jitter;
		}

		boolean isEmpty() {
			return this.initial == null && this.multiplier == null && this.max == null && this.jitter == null;
		}

	}

	/**
	 * The journal in the application's database: a transactional outbox for jobs
	 * scheduled in a transaction, and a record of each job's life from which jobs Redis
	 * lost can be sent again.
	 */
	public static class Journal {

		/**
		 * When the journal's schema scripts run: Spring Boot's
		 * {@code DatabaseInitializationMode}, by name. A type of its own so that these
		 * properties bind in an application without spring-boot-jdbc.
		 */
		public enum SchemaInitialization {

			/** Only on an embedded in-memory database. */
			EMBEDDED,

			/** On every start. */
			ALWAYS,

			/** Never: the application's migrations own the table. */
			NEVER

		}

		/**
		 * Whether to keep the journal; needs a DataSource and spring-jdbc.
		 */
		private boolean enabled = false;

		/**
		 * When to create or upgrade the journal's table: embedded (on an embedded
		 * in-memory database only), always, or never (the application's migrations create
		 * and upgrade it).
		 */
		private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

		/**
		 * Prefix of the journal's table name; the table is the prefix followed by "job".
		 */
		private String tablePrefix = "redeq_";

		/**
		 * How long the rows of finished jobs (completed, dead, cancelled) stay in the
		 * journal before they are deleted.
		 */
		private Duration retention = Duration.ofDays(7);

		/**
		 * Whether to send the journal's pending jobs to Redis again, without being asked,
		 * when redeq notices that Redis lost its data.
		 */
		private boolean autoRecover = false;

		/**
		 * How often each instance looks for outbox rows whose send after commit did not
		 * happen.
		 */
		private Duration relayInterval = Duration.ofSeconds(1);

		/**
		 * How often each instance checks whether Redis lost its data.
		 */
		private Duration checkInterval = Duration.ofSeconds(5);

		/**
		 * How many journal events wait in memory at most while the database is slow or
		 * down; further events are dropped (and counted) until it catches up.
		 */
		private int bufferCapacity = 100_000;

		/**
		 * How many rows one journal transaction writes, relays or deletes at most.
		 */
		private int batchSize = 500;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public SchemaInitialization getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(SchemaInitialization initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public String getTablePrefix() {
			return this.tablePrefix;
		}

		public void setTablePrefix(String tablePrefix) {
			this.tablePrefix = tablePrefix;
		}

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = retention;
		}

		public boolean isAutoRecover() {
			return this.autoRecover;
		}

		public void setAutoRecover(boolean autoRecover) {
			this.autoRecover = autoRecover;
		}

		public Duration getRelayInterval() {
			return this.relayInterval;
		}

		public void setRelayInterval(Duration relayInterval) {
			this.relayInterval = relayInterval;
		}

		public Duration getCheckInterval() {
			return this.checkInterval;
		}

		public void setCheckInterval(Duration checkInterval) {
			this.checkInterval = checkInterval;
		}

		public int getBufferCapacity() {
			return this.bufferCapacity;
		}

		public void setBufferCapacity(int bufferCapacity) {
			this.bufferCapacity = bufferCapacity;
		}

		public int getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(int batchSize) {
			this.batchSize = batchSize;
		}

	}

}
