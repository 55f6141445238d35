package io.redeq.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.redis.ClaimedJob;
import io.redeq.redis.RedisJobStore;

/**
 * Renews the leases of a subscription's running jobs every third of the lease, one extend
 * script per bucket, so a slow but alive handler keeps its job. Renewals are
 * asynchronous: the timer thread never waits on Redis. A renewal the store refuses means
 * the claim was lost (the lease had expired and the job went back to READY); that is
 * logged, because the job may now run twice.
 */
final class LeaseKeeper {

	private static final Logger logger = LoggerFactory.getLogger(LeaseKeeper.class);

	private final RedisJobStore store;

	private final Duration lease;

	private final Collection<RunningJob> running;

	private ScheduledFuture<?> renewal;

	LeaseKeeper(RedisJobStore store, Duration lease, Collection<RunningJob> running) {
		this.store = store;
		this.lease = lease;
		this.running = running;
	}

	void start(ScheduledExecutorService timers) {
		long every = Math.max(1, this.lease.toMillis() / 3);
		this.renewal = timers.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
	}

	void stop() {
		if (this.renewal != null) {
			this.renewal.cancel(false);
		}
	}

	private void renew() {
		Map<Integer, List<RunningJob>> byBucket = new LinkedHashMap<>();
		for (RunningJob runningJob : this.running) {
			if (!runningJob.isSettled()) {
				byBucket.computeIfAbsent(runningJob.job.bucket(), (b) -> new ArrayList<>()).add(runningJob);
			}
		}
		byBucket.forEach((bucket, runningJobs) -> {
			List<ClaimedJob> jobs = runningJobs.stream().map((runningJob) -> runningJob.job).toList();
			this.store.extend(bucket, this.lease.toMillis(), jobs).whenComplete((renewed, ex) -> {
				if (ex != null) {
					logger.debug("Could not renew leases in bucket {}; retrying at the next renewal", bucket, ex);
					return;
				}
				for (int i = 0; i < renewed.size(); i++) {
					if (!renewed.get(i) && stillRunning(runningJobs.get(i))) {
						logger.warn("Lease of job {} was lost while its handler runs; it may run again elsewhere",
								JobOutcomes.describe(jobs.get(i)));
					}
				}
			});
		});
	}

	/**
	 * Asked when the reply arrives, not when the renewal was sent: a job that finished in
	 * between was completed (or retried) by its worker, so Redis no longer holding its
	 * claim is expected, not a loss.
	 */
	private boolean stillRunning(RunningJob runningJob) {
		return !runningJob.isSettled() && this.running.contains(runningJob);
	}

}
