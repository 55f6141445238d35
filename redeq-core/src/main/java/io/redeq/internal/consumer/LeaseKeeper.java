package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.RedisJobStore;

/**
 * Renews the leases of a subscription's claims every third of the lease, one extend
 * script per bucket, so a slow but alive handler keeps its job: the claims of running
 * handlers, and of finished jobs whose completion Redis has not confirmed yet (a job must
 * not run again only because its completion waits for Redis). Renewals are asynchronous:
 * the timer thread never waits on Redis.
 *
 * <p>
 * A renewal the store refuses means the claim was lost (the lease had expired and the job
 * went back to READY). For a running handler that is logged once, because the job may now
 * run twice; a waiting completion ends there. Both are judged when the reply arrives, not
 * when the renewal was sent: a job that finished and was completed in between is no loss.
 */
final class LeaseKeeper {

	private static final Logger logger = LoggerFactory.getLogger(LeaseKeeper.class);

	private final LeaseRenewals store;

	private final Duration lease;

	private final Collection<RunningJob> running;

	private final Completions completing;

	private @Nullable ScheduledFuture<?> renewal;

	LeaseKeeper(RedisJobStore store, Duration lease, Collection<RunningJob> running, Acknowledgements completing) {
		this(LeaseRenewals.of(store), lease, running, completing);
	}

	/** Renews through {@code store}: a test's fake, or Redis. */
	LeaseKeeper(LeaseRenewals store, Duration lease, Collection<RunningJob> running, Completions completing) {
		this.store = store;
		this.lease = lease;
		this.running = running;
		this.completing = completing;
	}

	void start(ScheduledExecutorService timers) {
		long every = Math.max(1, this.lease.toMillis() / 3);
		this.renewal = timers.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
	}

	/** Stops renewing; leases still held then expire on their own. */
	void stop() {
		ScheduledFuture<?> renewal = this.renewal;
		if (renewal != null) {
			renewal.cancel(false);
		}
	}

	/** One round of renewals; the timer runs it every third of the lease. */
	void renew() {
		Map<Integer, List<Claim>> byBucket = new LinkedHashMap<>();
		for (RunningJob runningJob : this.running) {
			// A settled job's outcome is on its way, or close left it unrenewed.
			if (!runningJob.isSettled() && !runningJob.leaseLost()) {
				byBucket.computeIfAbsent(runningJob.job.bucket(), (b) -> new ArrayList<>())
					.add(new Claim(runningJob.job, runningJob));
			}
		}
		for (ClaimedJob job : this.completing.unconfirmed()) {
			byBucket.computeIfAbsent(job.bucket(), (b) -> new ArrayList<>()).add(new Claim(job, null));
		}
		byBucket.forEach(this::renew);
	}

	private void renew(int bucket, List<Claim> claims) {
		try {
			this.store.extend(bucket, this.lease.toMillis(), claims.stream().map(Claim::job).toList())
				.whenComplete((renewed, ex) -> {
					if (ex != null) {
						logger.debug("Could not renew leases in bucket {}; retrying at the next renewal", bucket, ex);
						return;
					}
					for (int i = 0; i < renewed.size(); i++) {
						if (!renewed.get(i)) {
							lost(claims.get(i));
						}
					}
				});
		}
		catch (RuntimeException ex) {
			// No connection to send it on. Caught here because an exception escaping a
			// periodic task would cancel every later renewal without a word.
			logger.debug("Could not renew leases in bucket {}; retrying at the next renewal", bucket, ex);
		}
	}

	private void lost(Claim claim) {
		RunningJob runningJob = claim.runningJob();
		if (runningJob != null && stillRunning(runningJob)) {
			if (runningJob.markLeaseLost()) {
				if (runningJob.hasBegun()) {
					logger.warn("Lease of job {} was lost while its handler runs; it may run again elsewhere",
							JobOutcomes.describe(claim.job()));
				}
				else {
					logger.warn("Lease of prefetched job {} was lost before its handler began; it will not run here",
							JobOutcomes.describe(claim.job()));
				}
			}
			return;
		}
		// A job that finished since the renewal was sent may wait for its completion now.
		this.completing.claimLost(claim.job());
	}

	private boolean stillRunning(RunningJob runningJob) {
		return !runningJob.isSettled() && this.running.contains(runningJob);
	}

	/** A claim one renewal asked for: of a running handler, or of a finished job. */
	private record Claim(ClaimedJob job, @Nullable RunningJob runningJob) {
	}

	/**
	 * Finished jobs whose completion Redis has not answered yet
	 * ({@link Acknowledgements}): their leases are renewed too.
	 */
	interface Completions {

		/** The finished jobs whose completion waits for Redis. */
		Collection<ClaimedJob> unconfirmed();

		/** A renewal found the claim of this finished job gone. */
		void claimLost(ClaimedJob job);

	}

}
