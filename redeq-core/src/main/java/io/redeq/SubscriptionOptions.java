package io.redeq;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import io.redeq.internal.Validate;

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

	private SubscriptionOptions(Builder builder) {
		this.lease = builder.lease;
		this.concurrency = builder.concurrency;
		this.maxAttempts = builder.maxAttempts;
		this.timeout = builder.timeout;
		this.backoff = builder.backoff;
	}

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

	public int concurrency(RedeqOptions defaults) {
		return (this.concurrency != null) ? this.concurrency : defaults.concurrency();
	}

	public int maxAttempts(RedeqOptions defaults) {
		return (this.maxAttempts != null) ? this.maxAttempts : defaults.maxAttempts();
	}

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

	public Backoff backoff(RedeqOptions defaults) {
		return (this.backoff != null) ? this.backoff : defaults.backoff();
	}

	/** Builder of {@link SubscriptionOptions}. */
	public static final class Builder {

		private @Nullable Integer concurrency;

		private @Nullable Integer maxAttempts;

		private @Nullable Duration timeout;

		private @Nullable Backoff backoff;

		private @Nullable Duration lease;

		private Builder() {
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

		public Builder backoff(Backoff backoff) {
			this.backoff = backoff;
			return this;
		}

		public SubscriptionOptions build() {
			return new SubscriptionOptions(this);
		}

	}

}
