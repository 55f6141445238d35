package io.redeq.spring.internal.journal;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.redeq.Job;

/**
 * Names the version of each job the journal sends, so that a row, keyed by topic and id,
 * is finished only by an outcome of the version it describes.
 *
 * <p>
 * Why: a transaction may replace a job under its id while the old version runs. Redis
 * refuses to replace a running job, so the new version waits in the outbox for the relay;
 * meanwhile the old version ends, and its outcome, named only by topic and id, would
 * finish the row of the new version, which would then never be sent. With versions, the
 * engine stores the version with the job and names it with each step of a delivery
 * ({@link io.redeq.internal.consumer.VersionedLifecycleListener}); the writer applies a
 * step only to a row of the same version.
 *
 * <p>
 * The version of a job the outbox wrote (or the relay or the recovery sends) is the one
 * in its row: it is {@link #assign assigned} to that {@link Job} instance before the
 * engine sends it, which asks for it ({@link #apply}) on the sending thread. Any other
 * job gets a fresh random one, which its "scheduled" event writes into its row. A version
 * is 64 random bits: no clock, no coordination between instances.
 */
final class JobVersions implements Function<Job, @Nullable String> {

	private static final SecureRandom RANDOM = new SecureRandom();

	private static final Base64.Encoder TEXT = Base64.getUrlEncoder().withoutPadding();

	/**
	 * Versions and trace contexts given to job instances about to be sent, by identity.
	 */
	private final Map<Job, Row> assigned = new IdentityHashMap<>();

	/**
	 * A new version: 11 characters of URL-safe base 64, which the engine's record holds
	 * as they are.
	 * @return the version
	 */
	static String next() {
		byte[] bits = new byte[8];
		RANDOM.nextBytes(bits);
		return TEXT.encodeToString(bits);
	}

	/**
	 * The version the engine sends this job as: the one assigned to this instance, else a
	 * new one.
	 */
	@Override
	public @Nullable String apply(Job job) {
		synchronized (this.assigned) {
			Row row = this.assigned.get(job);
			if (row != null) {
				return row.version();
			}
		}
		return next();
	}

	/**
	 * The trace context the engine sends this job with: the one its row recorded when the
	 * job was scheduled in its transaction, or null (the send is observed as usual).
	 * @param job the job about to be sent
	 * @return the trace context, or null
	 */
	@Nullable String traceContextOf(Job job) {
		synchronized (this.assigned) {
			Row row = this.assigned.get(job);
			return (row != null) ? row.traceContext() : null;
		}
	}

	/**
	 * Gives a job instance the version of its row, until {@link #forget}.
	 * @param job the job about to be sent
	 * @param version the row's version, or null for a row that has none (the job is then
	 * sent without one)
	 * @param traceContext the row's trace context, or null
	 */
	void assign(Job job, @Nullable String version, @Nullable String traceContext) {
		synchronized (this.assigned) {
			this.assigned.put(job, new Row(version, traceContext));
		}
	}

	/**
	 * Forgets the versions of jobs that were sent, or will not be.
	 * @param jobs the job instances
	 */
	void forget(Collection<Job> jobs) {
		synchronized (this.assigned) {
			jobs.forEach(this.assigned::remove);
		}
	}

	/**
	 * Sends a job as the version of its row.
	 * @param job the job
	 * @param version the row's version
	 * @param traceContext the row's trace context, or null
	 * @param send what sends it
	 * @param <T> what the send returns
	 * @return what the send returned
	 */
	<T> T sending(Job job, @Nullable String version, @Nullable String traceContext, Supplier<T> send) {
		assign(job, version, traceContext);
		try {
			return send.get();
		}
		finally {
			forget(java.util.List.of(job));
		}
	}

	/**
	 * How many job instances hold an assigned version: none once their sends are done.
	 * @return the count
	 */
	int size() {
		synchronized (this.assigned) {
			return this.assigned.size();
		}
	}

	/** What a job instance is sent as: its row's version and trace context. */
	private record Row(@Nullable String version, @Nullable String traceContext) {
	}

}
