package io.redeq.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

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
 * @since 0.1.0
 */
@ConfigurationProperties("redeq")
public class RedeqProperties {

	// About 600 lines, as Boot's own *Properties classes are: one JavaBean tree per key
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
	 * Number of buckets the delay index is split into; a power of two. Must match the
	 * count recorded in Redis for the prefix.
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

	/**
	 * Per-topic overrides of the consumer.* settings, keyed by topic name.
	 */
	private Map<String, Topic> topics = new LinkedHashMap<>();

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
		 * Handler timeout and lease of an in-flight job.
		 */
		private Duration timeout = RedeqOptions.DEFAULT_TIMEOUT;

		/**
		 * Maximum number of deliveries before a failing job is dead.
		 */
		private int maxAttempts = RedeqOptions.DEFAULT_MAX_ATTEMPTS;

		/**
		 * Whether idle consumers wait in Redis with BLPOP; disable behind proxies that do
		 * not support blocking commands.
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
	 * Overrides of the consumer.* settings for one topic; unset values fall back to them.
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

		private final TopicBackoff backoff = new TopicBackoff();

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

		public TopicBackoff getBackoff() {
			return this.backoff;
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

}
