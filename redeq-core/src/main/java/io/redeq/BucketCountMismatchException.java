package io.redeq;

/**
 * Thrown at startup when the bucket count configured differs from the one recorded in
 * Redis for the same prefix. Starting anyway would strand every job in a bucket the new
 * count does not cover; run {@link Redeq.Builder#reshard()} to move them instead.
 *
 * @since 0.1.0
 */
public class BucketCountMismatchException extends RedeqException {

	private final int recorded;

	private final int configured;

	public BucketCountMismatchException(String prefix, int recorded, int configured) {
		super("redeq prefix '" + prefix + "' holds jobs in " + recorded + " buckets in Redis, but " + configured
				+ " buckets are configured. Set redeq.buckets=" + recorded
				+ " to keep the current layout, or stop every instance and reshard to " + configured
				+ " buckets (Redeq.builder(client).prefix(\"" + prefix + "\").buckets(" + configured
				+ ").reshard()), which moves every job.");
		this.recorded = recorded;
		this.configured = configured;
	}

	public int recorded() {
		return this.recorded;
	}

	public int configured() {
		return this.configured;
	}

}
