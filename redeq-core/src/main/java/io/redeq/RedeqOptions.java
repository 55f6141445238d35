package io.redeq;

import java.time.Duration;

/**
 * Every setting of a {@link Redeq} engine, immutable. Built by {@link Redeq.Builder},
 * whose setters are named after the configuration keys ({@code redeq.migrator.batch-size}
 * → {@code batchSize}).
 *
 * @param prefix namespace of every Redis key
 * @param buckets number of buckets the delay index is split into, a power of two
 * @param maxPending jobs a topic may hold pending (delayed, ready, in flight); 0 =
 * unlimited
 * @param maxPayloadSize largest serialised payload in bytes
 * @param migratorEnabled whether this instance migrates due jobs
 * @param batchSize jobs moved per migration script call
 * @param sweepInterval longest time a bucket goes unchecked (a safety net; wake-ups are
 * event-driven)
 * @param lockTtl lease of a migrator's bucket lock; a dead instance's buckets are taken
 * over within it
 * @param concurrency default handlers running at once per subscription
 * @param timeout default lease of an in-flight job and handler timeout
 * @param maxAttempts default deliveries before a failing job is DEAD
 * @param backoff default wait between attempts
 * @param blocking whether consumers wait with BLPOP (off for proxies without blocking
 * commands)
 * @param pollInterval longest wait of an idle consumer before it checks the ready queues
 * itself
 * @param shutdownTimeout how long closing waits for running handlers
 * @param deadLetterRetention how long dead jobs are kept
 * @param commandTimeout how long a caller waits for Redis before
 * {@link RedeqUnavailableException}
 * @param statsRefreshInterval how often the snapshot behind gauges and health is
 * refreshed
 * @param waitReplicas replicas that must acknowledge a scheduled job (Redis {@code WAIT})
 * before {@code schedule} returns; 0 (the default) does not wait, and a master failover
 * can then lose jobs that were acknowledged but not yet replicated
 * @param waitTimeout longest time {@code schedule} waits for those replicas
 * @since 0.1.0
 */
public record RedeqOptions(String prefix, int buckets, long maxPending, long maxPayloadSize, boolean migratorEnabled,
		int batchSize, Duration sweepInterval, Duration lockTtl, int concurrency, Duration timeout, int maxAttempts,
		Backoff backoff, boolean blocking, Duration pollInterval, Duration shutdownTimeout,
		Duration deadLetterRetention, Duration commandTimeout, Duration statsRefreshInterval, int waitReplicas,
		Duration waitTimeout) {

	/** Default of {@link #waitTimeout()}. */
	public static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofSeconds(1);

	/** The options without replica acknowledgement ({@code waitReplicas = 0}). */
	public RedeqOptions(String prefix, int buckets, long maxPending, long maxPayloadSize, boolean migratorEnabled,
			int batchSize, Duration sweepInterval, Duration lockTtl, int concurrency, Duration timeout, int maxAttempts,
			Backoff backoff, boolean blocking, Duration pollInterval, Duration shutdownTimeout,
			Duration deadLetterRetention, Duration commandTimeout, Duration statsRefreshInterval) {
		this(prefix, buckets, maxPending, maxPayloadSize, migratorEnabled, batchSize, sweepInterval, lockTtl,
				concurrency, timeout, maxAttempts, backoff, blocking, pollInterval, shutdownTimeout,
				deadLetterRetention, commandTimeout, statsRefreshInterval, 0, DEFAULT_WAIT_TIMEOUT);
	}

	/**
	 * Most buckets supported: enough for 256 cluster masters at the advised 4 buckets
	 * each.
	 */
	public static final int MAX_BUCKETS = 1024;

	/**
	 * Capacity each bucket enforces for one topic, so that a topic's total stays within
	 * {@code maxPending} without summing all buckets on every schedule.
	 */
	public long capacityPerBucket() {
		return (this.maxPending == 0) ? 0 : Math.max(1, (this.maxPending + this.buckets - 1) / this.buckets);
	}

}
