package io.redeq.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties of redeq ({@code redeq.*}). The Redis connection itself is
 * Spring Boot's ({@code spring.data.redis.*}).
 *
 * @since 0.1.0
 */
@ConfigurationProperties("redeq")
public class RedeqProperties {

	/**
	 * Whether to enable redeq.
	 */
	private boolean enabled = true;

	/**
	 * Namespace of every Redis key redeq writes; applications sharing a prefix share
	 * queues.
	 */
	private String prefix = "redeq";

	/**
	 * Number of buckets the delay index is split into; a power of two. Must match the
	 * count recorded in Redis for the prefix.
	 */
	private int buckets = 16;

	/**
	 * Maximum number of pending jobs per topic, 0 for unlimited; scheduling beyond it
	 * throws CapacityExceededException.
	 */
	private long maxPending = 1_000_000;

	/**
	 * Largest payload, as serialized JSON.
	 */
	private DataSize maxPayloadSize = DataSize.ofKilobytes(512);

	/**
	 * Whether jobs scheduled, cancelled or rescheduled inside a Spring transaction are
	 * sent only when it commits (and dropped when it rolls back).
	 */
	private boolean transactional = true;

	/**
	 * Time to wait for running handlers to finish when the application shuts down.
	 */
	private Duration shutdownTimeout = Duration.ofSeconds(20);

	/**
	 * Time a call waits for Redis before it fails with RedeqUnavailableException.
	 */
	private Duration commandTimeout = Duration.ofSeconds(10);

	/**
	 * How often the background snapshot of queue counts, migration lag and READY wait
	 * times is refreshed; gauges, the health indicator and the actuator endpoint read it
	 * instead of Redis. Each refresh costs one read-only script per bucket.
	 */
	private Duration statsRefreshInterval = Duration.ofSeconds(5);

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
		private boolean enabled = true;

		/**
		 * Maximum number of jobs moved per migration call.
		 */
		private int batchSize = 1000;

		/**
		 * Longest time a bucket goes unchecked; a safety net, since wake-ups are
		 * event-driven.
		 */
		private Duration sweepInterval = Duration.ofSeconds(1);

		/**
		 * Lease of a bucket lock; a dead instance's buckets are taken over within it.
		 */
		private Duration lockTtl = Duration.ofSeconds(10);

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
		private int concurrency = 1;

		/**
		 * Handler timeout and lease of an in-flight job.
		 */
		private Duration timeout = Duration.ofMinutes(5);

		/**
		 * Maximum number of deliveries before a failing job is dead.
		 */
		private int maxAttempts = 3;

		/**
		 * Whether idle consumers wait in Redis with BLPOP; disable behind proxies that do
		 * not support blocking commands.
		 */
		private boolean blocking = true;

		/**
		 * Longest wait of an idle consumer before it checks the ready queues itself.
		 */
		private Duration pollInterval = Duration.ofSeconds(5);

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
		private Duration initial = Duration.ofSeconds(1);

		/**
		 * Factor by which each further wait grows; at least 1.0.
		 */
		private double multiplier = 2.0;

		/**
		 * Longest wait between two attempts.
		 */
		private Duration max = Duration.ofMinutes(10);

		/**
		 * Fraction of each wait added or removed at random, between 0.0 and 1.0, so that
		 * failed jobs do not all retry at once.
		 */
		private double jitter = 0.2;

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
		private Duration retention = Duration.ofDays(7);

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
		private int waitReplicas = 0;

		/**
		 * Longest time schedule waits for wait-replicas replicas to acknowledge.
		 */
		private Duration waitTimeout = Duration.ofSeconds(1);

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
