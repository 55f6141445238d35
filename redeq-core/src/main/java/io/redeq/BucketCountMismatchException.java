package io.redeq;

/**
 * Thrown at startup when the bucket count configured differs from the one recorded in
 * Redis for the same prefix. Starting anyway would strand every job in a bucket the new
 * count does not cover; run {@link Redeq.Builder#reshard()} to move them instead.
 *
 * @since 0.1.0
 */
public class BucketCountMismatchException extends RedeqException {

	/** Number of buckets recorded in Redis for the prefix. */
	private final int recorded;

	/** Number of buckets this instance is configured with. */
	private final int configured;

	/**
	 * Creates the exception, with a message that says how to resolve the mismatch.
	 * @param prefix the key prefix
	 * @param recorded the bucket count recorded in Redis
	 * @param configured the bucket count configured
	 */
	public BucketCountMismatchException(String prefix, int recorded, int configured) {
		super("redeq prefix '" + prefix + "' holds jobs in " + recorded + " buckets in Redis, but " + configured
				+ " buckets are configured. Set redeq.buckets=" + recorded
				+ " to keep the current layout, or stop every instance and reshard to " + configured
				+ " buckets (Redeq.builder(client).prefix(\"" + prefix + "\").buckets(" + configured
				+ ").reshard()), which moves every job.");
		this.recorded = recorded;
		this.configured = configured;
	}

	/**
	 * The bucket count recorded in Redis for the prefix.
	 * @return the recorded count
	 */
	public int recorded() {
		return this.recorded;
	}

	/**
	 * The bucket count this instance is configured with.
	 * @return the configured count
	 */
	public int configured() {
		return this.configured;
	}

}
