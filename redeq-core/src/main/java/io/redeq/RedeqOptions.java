package io.redeq;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import io.redeq.internal.Validate;

/**
 * Every setting of a {@link Redeq} engine, immutable. Each default is a {@code DEFAULT_*}
 * constant of this class, and both the {@link Builder} and the Spring Boot starter's
 * {@code redeq.*} properties start from them, so no default is written twice. Shaped
 * after Lettuce's {@code ClientOptions}: {@link #builder()} and {@link #mutate()}, no
 * public constructor, so a new setting breaks no caller.
 *
 * <p>
 * One class because it is the one place for all settings, each with its default, its
 * accessor and its validating setter (named after its configuration key:
 * {@code redeq.migrator.batch-size} is {@code batchSize}).
 *
 * @since 0.1.0
 */
public final class RedeqOptions {

	/** Default of {@code redeq.prefix}. */
	public static final String DEFAULT_PREFIX = "redeq";

	/** Default of {@code redeq.buckets}. */
	public static final int DEFAULT_BUCKETS = 16;

	/**
	 * Most buckets supported: enough for 256 cluster masters at the advised 4 buckets
	 * each.
	 */
	public static final int MAX_BUCKETS = 1024;

	/** Default of {@code redeq.max-pending}. */
	public static final long DEFAULT_MAX_PENDING = 1_000_000;

	/** 512 KiB, in bytes. */
	public static final long DEFAULT_MAX_PAYLOAD_SIZE = 512 * 1024;

	/** Default of {@code redeq.migrator.enabled}. */
	public static final boolean DEFAULT_MIGRATOR_ENABLED = true;

	/** Default of {@code redeq.migrator.batch-size}. */
	public static final int DEFAULT_BATCH_SIZE = 1000;

	/** Largest {@code batchSize} accepted. */
	public static final int MAX_BATCH_SIZE = 5000;

	/** Default of {@code redeq.migrator.sweep-interval}. */
	public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(1);

	/** Default of {@code redeq.migrator.lock-ttl}. */
	public static final Duration DEFAULT_LOCK_TTL = Duration.ofSeconds(10);

	/**
	 * Shortest {@code lockTtl} accepted; the migrator renews its locks every third of it.
	 */
	public static final Duration MIN_LOCK_TTL = Duration.ofMillis(300);

	/** Default of {@code redeq.consumer.concurrency}. */
	public static final int DEFAULT_CONCURRENCY = 1;

	/** Largest {@code redeq.consumer.prefetch}. */
	public static final int MAX_PREFETCH = 10_000;

	/**
	 * Default of {@code redeq.consumer.prefetch}, per unit of concurrency: a listener
	 * with concurrency 4 holds up to 256 jobs beyond its running ones. A backlog fills
	 * only what its handlers finish in about 10 ms ({@code Workers}); the rest is room
	 * for jobs handed over ahead of their due time, which the early hand-off gathers 100
	 * ms ahead ({@code HandOffs}): with less room, a busy listener cannot take all the
	 * jobs falling due in that window, and those left over cost scripts of their own.
	 */
	public static final int DEFAULT_PREFETCH_PER_HANDLER = 64;

	/** Default of {@code redeq.consumer.timeout}. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

	/** Default of {@code redeq.consumer.max-attempts}. */
	public static final int DEFAULT_MAX_ATTEMPTS = 3;

	/** 1 s, doubling, at most 10 min, ± 20 %. */
	public static final Backoff DEFAULT_BACKOFF = new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(10), 0.2);

	/** Default of {@code redeq.consumer.blocking}. */
	public static final boolean DEFAULT_BLOCKING = true;

	/** Default of {@code redeq.consumer.poll-interval}. */
	public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(5);

	/** Default of {@code redeq.redis.proxy-mode}. */
	public static final boolean DEFAULT_PROXY_MODE = false;

	/** Default of {@code redeq.shutdown-timeout}. */
	public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);

	/** Default of {@code redeq.dead-letter.retention}. */
	public static final Duration DEFAULT_DEAD_LETTER_RETENTION = Duration.ofDays(7);

	/** Default of {@code redeq.command-timeout}. */
	public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);

	/** Default of {@code redeq.stats-refresh-interval}. */
	public static final Duration DEFAULT_STATS_REFRESH_INTERVAL = Duration.ofSeconds(5);

	/** Default of {@code redeq.durability.wait-replicas}. */
	public static final int DEFAULT_WAIT_REPLICAS = 0;

	/** Default of {@code redeq.durability.wait-timeout}. */
	public static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofSeconds(1);

	private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._\\-]{1,50}");

	private final String prefix;

	private final int buckets;

	private final long maxPending;

	private final long maxPayloadSize;

	private final boolean migratorEnabled;

	private final int batchSize;

	private final Duration sweepInterval;

	private final Duration lockTtl;

	private final int concurrency;

	private final @Nullable Integer prefetch;

	private final Duration timeout;

	private final int maxAttempts;

	private final Backoff backoff;

	private final boolean blocking;

	private final Duration pollInterval;

	private final boolean proxyMode;

	private final Duration shutdownTimeout;

	private final Duration deadLetterRetention;

	private final Duration commandTimeout;

	private final Duration statsRefreshInterval;

	private final int waitReplicas;

	private final Duration waitTimeout;

	private RedeqOptions(BaseBuilder<?> builder) {
		this.prefix = builder.prefix;
		this.buckets = builder.buckets;
		this.maxPending = builder.maxPending;
		this.maxPayloadSize = builder.maxPayloadSize;
		this.migratorEnabled = builder.migratorEnabled;
		this.batchSize = builder.batchSize;
		this.sweepInterval = builder.sweepInterval;
		this.lockTtl = builder.lockTtl;
		this.concurrency = builder.concurrency;
		this.prefetch = builder.prefetch;
		this.timeout = builder.timeout;
		this.maxAttempts = builder.maxAttempts;
		this.backoff = builder.backoff;
		this.blocking = builder.blocking;
		this.pollInterval = builder.pollInterval;
		this.proxyMode = builder.proxyMode;
		this.shutdownTimeout = builder.shutdownTimeout;
		this.deadLetterRetention = builder.deadLetterRetention;
		this.commandTimeout = builder.commandTimeout;
		this.statsRefreshInterval = builder.statsRefreshInterval;
		this.waitReplicas = builder.waitReplicas;
		this.waitTimeout = builder.waitTimeout;
	}

	/**
	 * A builder holding every default.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * A builder holding these options, to change some of them.
	 * @return a new builder
	 */
	public Builder mutate() {
		return new Builder().from(this);
	}

	/**
	 * Returns the namespace of every Redis key the engine writes; see
	 * {@link BaseBuilder#prefix(String)}.
	 * @return the namespace of every Redis key the engine writes
	 */
	public String prefix() {
		return this.prefix;
	}

	/**
	 * Returns the number of buckets the delay index is split into; see
	 * {@link BaseBuilder#buckets(int)}.
	 * @return the number of buckets the delay index is split into
	 */
	public int buckets() {
		return this.buckets;
	}

	/**
	 * Returns the most pending jobs per topic, 0 for no limit; see
	 * {@link BaseBuilder#maxPending(long)}.
	 * @return the most pending jobs per topic, 0 for no limit
	 */
	public long maxPending() {
		return this.maxPending;
	}

	/**
	 * Returns the largest serialized payload, in bytes; see
	 * {@link BaseBuilder#maxPayloadSize(long)}.
	 * @return the largest serialized payload, in bytes
	 */
	public long maxPayloadSize() {
		return this.maxPayloadSize;
	}

	/**
	 * Returns whether this instance migrates due jobs; see
	 * {@link BaseBuilder#migratorEnabled(boolean)}.
	 * @return whether this instance migrates due jobs
	 */
	public boolean migratorEnabled() {
		return this.migratorEnabled;
	}

	/**
	 * Returns the most jobs moved per migration call; see
	 * {@link BaseBuilder#batchSize(int)}.
	 * @return the most jobs moved per migration call
	 */
	public int batchSize() {
		return this.batchSize;
	}

	/**
	 * Returns the longest time a bucket goes unchecked; see
	 * {@link BaseBuilder#sweepInterval(Duration)}.
	 * @return the longest time a bucket goes unchecked
	 */
	public Duration sweepInterval() {
		return this.sweepInterval;
	}

	/**
	 * Returns the lease of a bucket lock; see {@link BaseBuilder#lockTtl(Duration)}.
	 * @return the lease of a bucket lock
	 */
	public Duration lockTtl() {
		return this.lockTtl;
	}

	/**
	 * Returns the default number of handlers of one subscription that run at once; see
	 * {@link BaseBuilder#concurrency(int)}.
	 * @return the default number of handlers of one subscription that run at once
	 */
	public int concurrency() {
		return this.concurrency;
	}

	/**
	 * Returns how many jobs a subscription with this concurrency claims beyond it; see
	 * {@link BaseBuilder#prefetch(int)}.
	 * @param concurrency the subscription's concurrency
	 * @return the prefetch set, else {@value #DEFAULT_PREFETCH_PER_HANDLER} times the
	 * concurrency (at most {@value #MAX_PREFETCH})
	 */
	public int prefetchFor(int concurrency) {
		return (this.prefetch != null) ? this.prefetch
				: (int) Math.min(MAX_PREFETCH, (long) DEFAULT_PREFETCH_PER_HANDLER * concurrency);
	}

	/**
	 * Returns the default handler timeout and lease of an in-flight job; see
	 * {@link BaseBuilder#timeout(Duration)}.
	 * @return the default handler timeout and lease of an in-flight job
	 */
	public Duration timeout() {
		return this.timeout;
	}

	/**
	 * Returns the default number of deliveries before a failing job is dead; see
	 * {@link BaseBuilder#maxAttempts(int)}.
	 * @return the default number of deliveries before a failing job is dead
	 */
	public int maxAttempts() {
		return this.maxAttempts;
	}

	/**
	 * Returns the default backoff between the attempts of a failing job; see
	 * {@link BaseBuilder#backoff(Backoff)}.
	 * @return the default backoff between the attempts of a failing job
	 */
	public Backoff backoff() {
		return this.backoff;
	}

	/**
	 * Returns whether idle consumers wait in Redis with BLPOP; see
	 * {@link BaseBuilder#blocking(boolean)}.
	 * @return whether idle consumers wait in Redis with BLPOP
	 */
	public boolean blocking() {
		return this.blocking;
	}

	/**
	 * Returns the longest wait of an idle consumer before it checks the ready queues; see
	 * {@link BaseBuilder#pollInterval(Duration)}.
	 * @return the longest wait of an idle consumer before it checks the ready queues
	 */
	public Duration pollInterval() {
		return this.pollInterval;
	}

	/**
	 * Whether redeq talks to Redis through a proxy that forbids pub/sub and blocking
	 * commands ({@code redeq.redis.proxy-mode}). When on, redeq sends no SUBSCRIBE,
	 * PUBLISH or BLPOP, whatever {@link #blocking()} says.
	 * @return whether proxy mode is on
	 */
	public boolean proxyMode() {
		return this.proxyMode;
	}

	/**
	 * Whether idle consumers wait in Redis with BLPOP: {@link #blocking()}, unless
	 * {@link #proxyMode()} forbids blocking commands.
	 * @return whether consumers block in Redis
	 */
	public boolean blocksInRedis() {
		return this.blocking && !this.proxyMode;
	}

	/**
	 * Returns the time running handlers get to finish on close; see
	 * {@link BaseBuilder#shutdownTimeout(Duration)}.
	 * @return the time running handlers get to finish on close
	 */
	public Duration shutdownTimeout() {
		return this.shutdownTimeout;
	}

	/**
	 * Returns how long dead jobs are kept; see
	 * {@link BaseBuilder#deadLetterRetention(Duration)}.
	 * @return how long dead jobs are kept
	 */
	public Duration deadLetterRetention() {
		return this.deadLetterRetention;
	}

	/**
	 * Returns the time a call waits for Redis before it fails; see
	 * {@link BaseBuilder#commandTimeout(Duration)}.
	 * @return the time a call waits for Redis before it fails
	 */
	public Duration commandTimeout() {
		return this.commandTimeout;
	}

	/**
	 * Returns how often the background snapshot of queue counts is refreshed; see
	 * {@link BaseBuilder#statsRefreshInterval(Duration)}.
	 * @return how often the background snapshot of queue counts is refreshed
	 */
	public Duration statsRefreshInterval() {
		return this.statsRefreshInterval;
	}

	/**
	 * Returns the number of replicas that must acknowledge each scheduled job, 0 for
	 * none; see {@link BaseBuilder#waitReplicas(int)}.
	 * @return the number of replicas that must acknowledge each scheduled job, 0 for none
	 */
	public int waitReplicas() {
		return this.waitReplicas;
	}

	/**
	 * Returns the longest time schedule waits for the replicas; see
	 * {@link BaseBuilder#waitTimeout(Duration)}.
	 * @return the longest time schedule waits for the replicas
	 */
	public Duration waitTimeout() {
		return this.waitTimeout;
	}

	/**
	 * Capacity each bucket enforces for one topic, so that a topic's total stays within
	 * {@code maxPending} without summing all buckets on every schedule.
	 * @return the capacity, 0 for unlimited
	 */
	public long capacityPerBucket() {
		return (this.maxPending == 0) ? 0 : Math.max(1, (this.maxPending + this.buckets - 1) / this.buckets);
	}

	@Override
	public String toString() {
		return "RedeqOptions[prefix=" + this.prefix + ", buckets=" + this.buckets + ", maxPending=" + this.maxPending
				+ ", maxPayloadSize=" + this.maxPayloadSize + ", migratorEnabled=" + this.migratorEnabled
				+ ", batchSize=" + this.batchSize + ", sweepInterval=" + this.sweepInterval + ", lockTtl="
				+ this.lockTtl + ", concurrency=" + this.concurrency + ", prefetch="
				+ ((this.prefetch != null) ? this.prefetch : DEFAULT_PREFETCH_PER_HANDLER + " x concurrency")
				+ ", timeout=" + this.timeout + ", maxAttempts=" + this.maxAttempts + ", backoff=" + this.backoff
				+ ", blocking=" + this.blocking + ", pollInterval=" + this.pollInterval + ", proxyMode="
				+ this.proxyMode + ", shutdownTimeout=" + this.shutdownTimeout + ", deadLetterRetention="
				+ this.deadLetterRetention + ", commandTimeout=" + this.commandTimeout + ", statsRefreshInterval="
				+ this.statsRefreshInterval + ", waitReplicas=" + this.waitReplicas + ", waitTimeout="
				+ this.waitTimeout + "]";
	}

	/** Builder of {@link RedeqOptions}, starting from the defaults. */
	public static final class Builder extends BaseBuilder<Builder> {

		private Builder() {
		}

		/**
		 * Builds the options.
		 * @return the options
		 */
		public RedeqOptions build() {
			return buildOptions();
		}

	}

	/**
	 * The setters of every setting, shared by {@link Builder} and {@link Redeq.Builder}
	 * so that each exists once; {@code B} is the builder they return. Each setter is
	 * named after its configuration key and refuses a value outside what is allowed with
	 * an {@link IllegalArgumentException} that names the key, the value and the limit.
	 *
	 * @param <B> the concrete builder
	 */
	public abstract static class BaseBuilder<B extends BaseBuilder<B>> {

		private String prefix = DEFAULT_PREFIX;

		private int buckets = DEFAULT_BUCKETS;

		private long maxPending = DEFAULT_MAX_PENDING;

		private long maxPayloadSize = DEFAULT_MAX_PAYLOAD_SIZE;

		private boolean migratorEnabled = DEFAULT_MIGRATOR_ENABLED;

		private int batchSize = DEFAULT_BATCH_SIZE;

		private Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;

		private Duration lockTtl = DEFAULT_LOCK_TTL;

		private int concurrency = DEFAULT_CONCURRENCY;

		private @Nullable Integer prefetch;

		private Duration timeout = DEFAULT_TIMEOUT;

		private int maxAttempts = DEFAULT_MAX_ATTEMPTS;

		private Backoff backoff = DEFAULT_BACKOFF;

		private boolean blocking = DEFAULT_BLOCKING;

		private Duration pollInterval = DEFAULT_POLL_INTERVAL;

		private boolean proxyMode = DEFAULT_PROXY_MODE;

		private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;

		private Duration deadLetterRetention = DEFAULT_DEAD_LETTER_RETENTION;

		private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;

		private Duration statsRefreshInterval = DEFAULT_STATS_REFRESH_INTERVAL;

		private int waitReplicas = DEFAULT_WAIT_REPLICAS;

		private Duration waitTimeout = DEFAULT_WAIT_TIMEOUT;

		BaseBuilder() {
		}

		@SuppressWarnings("unchecked")
		private B self() {
			return (B) this;
		}

		/**
		 * Namespace of every Redis key ({@code redeq.prefix}); applications sharing a
		 * prefix share queues.
		 * @param prefix the prefix: letters, digits, {@code . _ -}, at most 50
		 * @return this builder
		 */
		public B prefix(String prefix) {
			this.prefix = Validate.matches("redeq.prefix", prefix, PREFIX, "1 to 50 characters from A-Z a-z 0-9 . _ -");
			return self();
		}

		/**
		 * Number of buckets the delay index is split into, a power of two up to
		 * {@link #MAX_BUCKETS} ({@code redeq.buckets}).
		 * @param buckets the number of buckets
		 * @return this builder
		 */
		public B buckets(int buckets) {
			this.buckets = Validate.powerOfTwo("redeq.buckets", buckets, MAX_BUCKETS);
			return self();
		}

		/**
		 * Jobs a topic may hold pending (delayed, ready, in flight), 0 for unlimited
		 * ({@code redeq.max-pending}).
		 * @param maxPending the limit per topic, or 0
		 * @return this builder
		 */
		public B maxPending(long maxPending) {
			this.maxPending = Validate.atLeast("redeq.max-pending", maxPending, 0);
			return self();
		}

		/**
		 * Largest serialised payload in bytes ({@code redeq.max-payload-size}).
		 * @param bytes the limit, positive
		 * @return this builder
		 */
		public B maxPayloadSize(long bytes) {
			this.maxPayloadSize = Validate.atLeast("redeq.max-payload-size", bytes, 1);
			return self();
		}

		/**
		 * Whether this instance migrates due jobs ({@code redeq.migrator.enabled}).
		 * @param enabled whether to migrate
		 * @return this builder
		 */
		public B migratorEnabled(boolean enabled) {
			this.migratorEnabled = enabled;
			return self();
		}

		/**
		 * Jobs moved per migration script call ({@code redeq.migrator.batch-size}).
		 * @param batchSize the number of jobs
		 * @return this builder
		 */
		public B batchSize(int batchSize) {
			this.batchSize = Validate.between("redeq.migrator.batch-size", batchSize, 1, MAX_BATCH_SIZE);
			return self();
		}

		/**
		 * Longest time a bucket goes unchecked ({@code redeq.migrator.sweep-interval}); a
		 * safety net, since wake-ups are event-driven.
		 * @param sweepInterval the interval, positive
		 * @return this builder
		 */
		public B sweepInterval(Duration sweepInterval) {
			this.sweepInterval = Validate.positive("redeq.migrator.sweep-interval", sweepInterval);
			return self();
		}

		/**
		 * Lease of a migrator's bucket lock ({@code redeq.migrator.lock-ttl}); a dead
		 * instance's buckets are taken over within it.
		 * @param lockTtl the lease
		 * @return this builder
		 */
		public B lockTtl(Duration lockTtl) {
			this.lockTtl = Validate.atLeast("redeq.migrator.lock-ttl", lockTtl, MIN_LOCK_TTL);
			return self();
		}

		/**
		 * Default number of handlers running at once per subscription
		 * ({@code redeq.consumer.concurrency}).
		 * @param concurrency the number of handlers, at least 1
		 * @return this builder
		 */
		public B concurrency(int concurrency) {
			this.concurrency = Validate.atLeast("redeq.consumer.concurrency", concurrency, 1);
			return self();
		}

		/**
		 * Jobs a subscription may claim beyond its concurrency, to start each as soon as
		 * a handler is free instead of after a round trip to Redis
		 * ({@code redeq.consumer.prefetch}; default: 64 times the concurrency). They are
		 * leased like running jobs, used only while handlers finish within about 50 ms on
		 * average, and only as many as the handlers finish in about 10 ms at their recent
		 * pace (at least the concurrency); they go back to READY at once when the
		 * subscription closes. 0 claims only into free handlers.
		 * @param prefetch the number of jobs, 0 to 10,000
		 * @return this builder
		 */
		public B prefetch(int prefetch) {
			this.prefetch = Validate.between("redeq.consumer.prefetch", prefetch, 0, MAX_PREFETCH);
			return self();
		}

		/**
		 * Default lease of an in-flight job and handler timeout
		 * ({@code redeq.consumer.timeout}).
		 * @param timeout the lease and handler timeout, positive
		 * @return this builder
		 */
		public B timeout(Duration timeout) {
			this.timeout = Validate.positive("redeq.consumer.timeout", timeout);
			return self();
		}

		/**
		 * Default deliveries before a failing job is DEAD
		 * ({@code redeq.consumer.max-attempts}).
		 * @param maxAttempts the number of deliveries, at least 1
		 * @return this builder
		 */
		public B maxAttempts(int maxAttempts) {
			this.maxAttempts = Validate.atLeast("redeq.consumer.max-attempts", maxAttempts, 1);
			return self();
		}

		/**
		 * Default wait between attempts ({@code redeq.consumer.backoff.*}).
		 * @param backoff the backoff
		 * @return this builder
		 */
		public B backoff(Backoff backoff) {
			this.backoff = Objects.requireNonNull(backoff, "backoff must not be null");
			return self();
		}

		/**
		 * Whether idle consumers wait in Redis with BLPOP
		 * ({@code redeq.consumer.blocking}); {@link #proxyMode(boolean) proxy mode}
		 * overrides it.
		 * @param blocking whether to block
		 * @return this builder
		 */
		public B blocking(boolean blocking) {
			this.blocking = blocking;
			return self();
		}

		/**
		 * Longest wait of an idle consumer before it checks the ready queues itself
		 * ({@code redeq.consumer.poll-interval}).
		 * @param pollInterval the interval, positive
		 * @return this builder
		 */
		public B pollInterval(Duration pollInterval) {
			this.pollInterval = Validate.positive("redeq.consumer.poll-interval", pollInterval);
			return self();
		}

		/**
		 * How long closing waits for running handlers ({@code redeq.shutdown-timeout}).
		 * @param shutdownTimeout the wait
		 * @return this builder
		 */
		public B shutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = Validate.positiveOrZero("redeq.shutdown-timeout", shutdownTimeout);
			return self();
		}

		/**
		 * How long dead jobs are kept ({@code redeq.dead-letter.retention}).
		 * @param retention the retention
		 * @return this builder
		 */
		public B deadLetterRetention(Duration retention) {
			this.deadLetterRetention = Validate.positive("redeq.dead-letter.retention", retention);
			return self();
		}

		/**
		 * How long a call waits for Redis before {@link RedeqUnavailableException}
		 * ({@code redeq.command-timeout}).
		 * @param commandTimeout the timeout, positive
		 * @return this builder
		 */
		public B commandTimeout(Duration commandTimeout) {
			this.commandTimeout = Validate.positive("redeq.command-timeout", commandTimeout);
			return self();
		}

		/**
		 * How often the background snapshot behind gauges and health is refreshed
		 * ({@code redeq.stats-refresh-interval}); one read-only script per bucket each
		 * time.
		 * @param interval the interval, positive
		 * @return this builder
		 */
		public B statsRefreshInterval(Duration interval) {
			this.statsRefreshInterval = Validate.positive("redeq.stats-refresh-interval", interval);
			return self();
		}

		/**
		 * Replicas that must acknowledge each scheduled job before {@code schedule}
		 * returns ({@code redeq.durability.wait-replicas}). After the schedule script,
		 * redeq sends Redis {@code WAIT n timeout} on the connection of the node that ran
		 * it, and throws {@link RedeqUnavailableException} when fewer replicas
		 * acknowledged in time (the job was written, but a failover now could lose it;
		 * scheduling it again under the same id is safe). 0 does not wait: replication is
		 * asynchronous, and a master that fails before its replica copied a job loses it.
		 * @param replicas the number of replicas, or 0
		 * @return this builder
		 */
		public B waitReplicas(int replicas) {
			this.waitReplicas = Validate.atLeast("redeq.durability.wait-replicas", replicas, 0);
			return self();
		}

		/**
		 * Whether Redis is reached through a proxy (Codis, Twemproxy, some managed
		 * services) that forbids pub/sub and blocking commands
		 * ({@code redeq.redis.proxy-mode}). When on, redeq sends no SUBSCRIBE, PUBLISH or
		 * blocking command (consumers never block, whatever {@link #blocking(boolean)}
		 * says): a migrator wakes from its own timers and the sweep, so a job scheduled
		 * by another instance earlier than its bucket's next one waits at most a sweep
		 * interval; consumers are woken at once when their own instance migrated the
		 * jobs, and otherwise poll.
		 * @param proxyMode whether to avoid pub/sub and blocking commands
		 * @return this builder
		 */
		public B proxyMode(boolean proxyMode) {
			this.proxyMode = proxyMode;
			return self();
		}

		/**
		 * Longest wait for {@link #waitReplicas(int) replicas}
		 * ({@code redeq.durability.wait-timeout}).
		 * @param waitTimeout the timeout, positive
		 * @return this builder
		 */
		public B waitTimeout(Duration waitTimeout) {
			this.waitTimeout = Validate.positive("redeq.durability.wait-timeout", waitTimeout);
			return self();
		}

		/**
		 * Takes every setting of {@code options}, already valid.
		 * @param options the options to copy
		 * @return this builder
		 */
		B from(RedeqOptions options) {
			this.prefix = options.prefix;
			this.buckets = options.buckets;
			this.maxPending = options.maxPending;
			this.maxPayloadSize = options.maxPayloadSize;
			this.migratorEnabled = options.migratorEnabled;
			this.batchSize = options.batchSize;
			this.sweepInterval = options.sweepInterval;
			this.lockTtl = options.lockTtl;
			this.concurrency = options.concurrency;
			this.prefetch = options.prefetch;
			this.timeout = options.timeout;
			this.maxAttempts = options.maxAttempts;
			this.backoff = options.backoff;
			this.blocking = options.blocking;
			this.pollInterval = options.pollInterval;
			this.proxyMode = options.proxyMode;
			this.shutdownTimeout = options.shutdownTimeout;
			this.deadLetterRetention = options.deadLetterRetention;
			this.commandTimeout = options.commandTimeout;
			this.statsRefreshInterval = options.statsRefreshInterval;
			this.waitReplicas = options.waitReplicas;
			this.waitTimeout = options.waitTimeout;
			return self();
		}

		RedeqOptions buildOptions() {
			return new RedeqOptions(this);
		}

	}

}
