package io.redeq.spring.boot.topology;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.redeq.Job;
import io.redeq.RedeqClient;
import io.redeq.RedeqException;

/**
 * One thread scheduling jobs as fast as it can, remembering every job whose
 * {@code schedule} returned: those are acknowledged, and must all be delivered. A refused
 * schedule (Redis failing over, too few replicas acknowledging) is counted, not
 * acknowledged: its caller was told.
 */
final class ScheduleLoad implements AutoCloseable {

	/**
	 * The starter's settings for a failover under this load: a replica must acknowledge
	 * each schedule, and leases last 20 s instead of 5 min, so a job left IN_FLIGHT under
	 * a claim whose reply the failover swallowed runs again within a test's wait (counted
	 * apart, see {@link Deliveries#afterLeaseExpiry}); a lost job still fails the test.
	 */
	static final String[] FAILOVER_PROPERTIES = { "redeq.prefix=failover", "redeq.durability.wait-replicas=1",
			"redeq.consumer.timeout=20s" };

	private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();

	private final AtomicInteger refused = new AtomicInteger();

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final Thread thread;

	ScheduleLoad(RedeqClient client, String topic, Duration delay) {
		AtomicInteger sequence = new AtomicInteger();
		this.thread = new Thread(() -> {
			while (this.running.get()) {
				String id = "job-" + sequence.incrementAndGet();
				try {
					client.schedule(Job.builder(topic).id(id).payload(id).delay(delay).build());
					this.acknowledged.add(id);
				}
				catch (RedeqException ex) {
					this.refused.incrementAndGet();
				}
			}
		}, "schedule-load");
		this.thread.start();
	}

	Set<String> acknowledged() {
		return this.acknowledged;
	}

	int refused() {
		return this.refused.get();
	}

	/** Stops scheduling; a schedule in progress finishes (within a command timeout). */
	@Override
	public void close() throws InterruptedException {
		this.running.set(false);
		this.thread.join(Duration.ofSeconds(15).toMillis());
	}

}
