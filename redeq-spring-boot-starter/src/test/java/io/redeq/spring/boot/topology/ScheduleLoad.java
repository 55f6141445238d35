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
