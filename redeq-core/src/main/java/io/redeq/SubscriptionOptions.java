package io.redeq;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import io.redeq.internal.Validate;
import io.redeq.internal.control.RateLimit;

/**
 * Settings of one subscription; a value left unset falls back to the engine's default.
 *
 * @since 0.1.0
 */
public final class SubscriptionOptions {

	private static final SubscriptionOptions DEFAULTS = builder().build();

	private final @Nullable Integer concurrency;

	private final @Nullable Integer maxAttempts;

	private final @Nullable Duration timeout;

	private final @Nullable Backoff backoff;

	private final @Nullable Duration lease;

	private final @Nullable RateLimit rateLimit;

	private SubscriptionOptions(Builder builder) {
		this.rateLimit = builder.rateLimit;
		this.lease = builder.lease;
		this.concurrency = builder.concurrency;
		this.maxAttempts = builder.maxAttempts;
		this.timeout = builder.timeout;
		this.backoff = builder.backoff;
	}

	/**
	 * A builder that sets nothing: every value is the engine's.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Options that take every value from the engine's defaults.
	 * @return options that set nothing
	 */
	public static SubscriptionOptions defaults() {
		return DEFAULTS;
	}

	/**
	 * The concurrency: as set, else the engine's.
	 * @param defaults the engine's options
	 * @return the concurrency in effect
	 */
	public int concurrency(RedeqOptions defaults) {
		return (this.concurrency != null) ? this.concurrency : defaults.concurrency();
	}

	/**
	 * The maximum attempts: as set, else the engine's.
	 * @param defaults the engine's options
	 * @return the maximum attempts in effect
	 */
	public int maxAttempts(RedeqOptions defaults) {
		return (this.maxAttempts != null) ? this.maxAttempts : defaults.maxAttempts();
	}

	/**
	 * The handler timeout: as set, else the engine's.
	 * @param defaults the engine's options
	 * @return the timeout in effect
	 */
	public Duration timeout(RedeqOptions defaults) {
		return (this.timeout != null) ? this.timeout : defaults.timeout();
	}

	/**
	 * The lease: as set, else the timeout (never longer than the timeout).
	 * @param timeout the handler timeout in effect
	 * @return the lease in effect
	 */
	public Duration lease(Duration timeout) {
		return (this.lease != null && this.lease.compareTo(timeout) < 0) ? this.lease : timeout;
	}

	/**
	 * The backoff: as set, else the engine's.
	 * @param defaults the engine's options
	 * @return the backoff in effect
	 */
	public Backoff backoff(RedeqOptions defaults) {
		return (this.backoff != null) ? this.backoff : defaults.backoff();
	}

	/**
	 * Job starts allowed per {@link #rateLimitWindow()} across all instances.
	 * @return the permits, or {@code null} when the topic is not rate limited
	 */
	public @Nullable Integer rateLimitPermits() {
		return (this.rateLimit != null) ? this.rateLimit.permits() : null;
	}

	/**
	 * The sliding window of the rate limit.
	 * @return the window, or {@code null} when the topic is not rate limited
	 */
	public @Nullable Duration rateLimitWindow() {
		return (this.rateLimit != null) ? this.rateLimit.window() : null;
	}

	/** Builder of {@link SubscriptionOptions}. */
	public static final class Builder {

		private @Nullable Integer concurrency;

		private @Nullable Integer maxAttempts;

		private @Nullable Duration timeout;

		private @Nullable Backoff backoff;

		private @Nullable Duration lease;

		private @Nullable RateLimit rateLimit;

		private Builder() {
		}

		/**
		 * At most {@code permits} job starts of the topic in any {@code window}, counted
		 * over every instance in Redis. Jobs beyond it wait READY: no attempt is used and
		 * nothing is logged per job.
		 * @param permits job starts per window, 1 to 1,000,000
		 * @param window the sliding window, 1 ms to 1 day
		 * @return this builder
		 */
		public Builder rateLimit(int permits, Duration window) {
			this.rateLimit = new RateLimit(permits, window);
			return this;
		}

		/**
		 * Handlers of this subscription that may run at once, at least 1.
		 * @param concurrency the number of handlers
		 * @return this builder
		 */
		public Builder concurrency(int concurrency) {
			this.concurrency = Validate.atLeast("concurrency", concurrency, 1);
			return this;
		}

		/**
		 * Deliveries before a failing job is DEAD, at least 1.
		 * @param maxAttempts the number of deliveries
		 * @return this builder
		 */
		public Builder maxAttempts(int maxAttempts) {
			this.maxAttempts = Validate.atLeast("maxAttempts", maxAttempts, 1);
			return this;
		}

		/**
		 * Lease of an in-flight job and handler timeout.
		 * @param timeout the lease and handler timeout, positive
		 * @return this builder
		 */
		public Builder timeout(Duration timeout) {
			this.timeout = Validate.positive("timeout", timeout);
			return this;
		}

		/**
		 * How long an in-flight job stays claimed without renewal; shorter than the
		 * timeout means a crashed instance's jobs come back sooner. Renewed every third
		 * of it while the handler runs. Defaults to the timeout.
		 * @param lease the lease, positive
		 * @return this builder
		 */
		public Builder lease(Duration lease) {
			this.lease = Validate.positive("lease", lease);
			return this;
		}

		/**
		 * Sets the backoff between the attempts of a failing job.
		 * @param backoff the backoff
		 * @return this builder
		 */
		public Builder backoff(Backoff backoff) {
			this.backoff = backoff;
			return this;
		}

		/**
		 * Builds the options.
		 * @return the options
		 */
		public SubscriptionOptions build() {
			return new SubscriptionOptions(this);
		}

	}

}
