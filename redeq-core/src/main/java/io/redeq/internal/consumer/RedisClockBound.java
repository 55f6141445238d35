package io.redeq.internal.consumer;

/**
 * How far the clock of one Redis server (the one holding a bucket) has surely come, read
 * on this JVM's clock: a script that ran at Redis time {@code T} and whose reply was in
 * at local time {@code t} ran before {@code t}, so at any later local time {@code t'}
 * Redis's clock reads at least {@code T + (t' - t)}. Each reply gives such a bound; the
 * tightest of the recent ones is kept, the one whose reply spent least time on its way
 * back.
 *
 * <p>
 * A job handed over ahead of its due time starts once this bound reaches that time.
 * Measured from its own reply alone, it would start late by however long that reply took
 * to reach the migrator's thread, and never early either way. Bounds older than
 * {@link #KEEP_NANOS} are dropped: kept longer, a bound from the server that held the
 * bucket before a failover or a slot move could time its jobs on the wrong clock.
 * {@link #DRIFT_PER_MILLION} covers the two machines' clocks drifting apart meanwhile (on
 * the same host both read one clock).
 */
final class RedisClockBound {

	/** How long a reply's bound is kept. */
	static final long KEEP_NANOS = 50_000_000L;

	/** Rate at which the two clocks are assumed to drift apart at most, per million. */
	static final long DRIFT_PER_MILLION = 100;

	/** Redis nanos minus local nanos of the kept bound; guarded by {@code this}. */
	private long offset;

	/** Local nanos of the kept bound's reply; guarded by {@code this}. */
	private long keptAt;

	private boolean any;

	/**
	 * A reply: the script ran at {@code redisMicros} on Redis's clock, and its reply was
	 * in at {@code localNanos} ({@link System#nanoTime()}) or earlier.
	 */
	synchronized void replied(long redisMicros, long localNanos) {
		long candidate = redisMicros * 1000 - localNanos;
		if (!this.any || localNanos - this.keptAt > KEEP_NANOS || candidate - this.offset > 0) {
			this.offset = candidate;
			this.keptAt = localNanos;
			this.any = true;
		}
	}

	/**
	 * Nanos from {@code nowNanos} until Redis's clock surely reads {@code redisMicros}: 0
	 * or less once it does. Call after {@link #replied} for the reply that brought the
	 * job.
	 */
	synchronized long nanosUntil(long redisMicros, long nowNanos) {
		long at = redisMicros * 1000 - this.offset;
		long drift = Math.max(0, at - this.keptAt) / 1_000_000 * DRIFT_PER_MILLION;
		return at + drift - nowNanos;
	}

}
