package io.redeq;

/**
 * Thrown at startup when the bucket count of an engine differs from the one recorded in
 * Redis for the same prefix and the engine could not follow the recorded one: an engine
 * takes the recorded count when it reads it before it is built (see
 * {@link Redeq.Builder#followRecordedBucketCount()}), so this happens only when Redis was
 * not reachable then, or with {@code autoStartup(false)} in plain Java. Starting anyway
 * would strand every job in a bucket the engine's count does not cover.
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
				+ " to keep the current layout (an engine built while Redis answers follows it by itself), or "
				+ "stop every instance and change the count to " + configured + " (RedeqAdmin.changeBucketCount("
				+ configured + ") or Redeq.builder(client).prefix(\"" + prefix + "\").buckets(" + configured
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
