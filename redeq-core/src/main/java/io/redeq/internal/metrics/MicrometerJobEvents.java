package io.redeq.internal.metrics;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import io.redeq.RedeqSnapshot;
import io.redeq.internal.JobEvents;

/**
 * redeq's meters, all tagged with {@code topic}: counters {@code redeq.jobs.scheduled},
 * {@code completed}, {@code retried}, {@code dead}, {@code cancelled}; timers
 * {@code redeq.jobs.lateness} (due time → claim by a consumer, Redis clock) and
 * {@code redeq.jobs.duration}; gauge {@code redeq.jobs.pending{state}} from the
 * background snapshot; and the migrator's {@code redeq.migrator.migrated},
 * {@code redeq.migrator.reclaimed}, {@code redeq.migrator.lag} and
 * {@code redeq.migrator.buckets.owned}; gauge {@code redeq.topic.paused} (1 while the
 * topic is paused). Meters of a topic are created once and cached.
 */
public final class MicrometerJobEvents implements JobEvents {

	private static final List<String> STATES = List.of("delayed", "ready", "in_flight", "dead");

	private final MeterRegistry registry;

	private final Map<String, TopicMeters> topics = new ConcurrentHashMap<>();

	private final Map<String, long[]> pending = new ConcurrentHashMap<>();

	private final Set<String> pausedGauges = ConcurrentHashMap.newKeySet();

	private final Counter migrated;

	private final Counter reclaimed;

	private volatile RedeqSnapshot snapshot = RedeqSnapshot.empty();

	public MicrometerJobEvents(MeterRegistry registry) {
		this.registry = registry;
		this.migrated = Counter.builder("redeq.migrator.migrated")
			.description("Due jobs moved from the delay index to ready queues by this instance")
			.register(registry);
		this.reclaimed = Counter.builder("redeq.migrator.reclaimed")
			.description("In-flight jobs whose lease expired, put back to READY by this instance")
			.register(registry);
		Gauge.builder("redeq.migrator.lag", this, (self) -> self.snapshot.migrationLag().toMillis() / 1000.0)
			.description("How long the most overdue delayed job has waited to be migrated, in seconds")
			.baseUnit("seconds")
			.register(registry);
		Gauge.builder("redeq.migrator.buckets.owned", this, (self) -> self.snapshot.ownedBuckets().size())
			.description("Buckets this instance migrates")
			.register(registry);
	}

	/**
	 * Takes a new snapshot's figures, registering pending gauges for topics seen the
	 * first time.
	 */
	public void update(RedeqSnapshot snapshot) {
		this.snapshot = snapshot;
		snapshot.topics().forEach((topic, stats) -> {
			long[] values = this.pending.computeIfAbsent(topic, this::registerPending);
			values[0] = stats.delayed();
			values[1] = stats.ready();
			values[2] = stats.inFlight();
			values[3] = stats.dead();
		});
		snapshot.topics().keySet().forEach(this::registerPaused);
		snapshot.pausedTopics().forEach(this::registerPaused);
	}

	private void registerPaused(String topic) {
		if (this.pausedGauges.add(topic)) {
			Gauge.builder("redeq.topic.paused", this, (self) -> self.snapshot.pausedTopics().contains(topic) ? 1 : 0)
				.description("1 while the topic is paused on every instance (RedeqAdmin.pause), else 0")
				.tags("topic", topic)
				.register(this.registry);
		}
	}

	private long[] registerPending(String topic) {
		long[] values = new long[STATES.size()];
		for (int i = 0; i < STATES.size(); i++) {
			int index = i;
			Gauge.builder("redeq.jobs.pending", values, (v) -> v[index])
				.description("Jobs of a topic per state, from a snapshot refreshed in the background")
				.tags("topic", topic, "state", STATES.get(i))
				.register(this.registry);
		}
		return values;
	}

	private TopicMeters meters(String topic) {
		return this.topics.computeIfAbsent(topic, (t) -> new TopicMeters(this.registry, t));
	}

	@Override
	public void scheduled(String topic) {
		meters(topic).scheduled.increment();
	}

	@Override
	public void cancelled(String topic) {
		meters(topic).cancelled.increment();
	}

	@Override
	public void started(String topic, Duration lateness) {
		meters(topic).lateness.record(lateness);
	}

	@Override
	public void completed(String topic, Duration handlerDuration) {
		TopicMeters meters = meters(topic);
		meters.completed.increment();
		meters.duration.record(handlerDuration);
	}

	@Override
	public void retried(String topic, Duration handlerDuration) {
		TopicMeters meters = meters(topic);
		meters.retried.increment();
		meters.duration.record(handlerDuration);
	}

	@Override
	public void dead(String topic) {
		meters(topic).dead.increment();
	}

	@Override
	public void migrated(int bucket, int migrated, int reclaimed) {
		this.migrated.increment(migrated);
		this.reclaimed.increment(reclaimed);
	}

	/** The meters of one topic. */
	private static final class TopicMeters {

		final Counter scheduled;

		final Counter completed;

		final Counter retried;

		final Counter dead;

		final Counter cancelled;

		final Timer lateness;

		final Timer duration;

		TopicMeters(MeterRegistry registry, String topic) {
			this.scheduled = counter(registry, "redeq.jobs.scheduled", "Jobs accepted by schedule", topic);
			this.completed = counter(registry, "redeq.jobs.completed", "Jobs whose handler returned", topic);
			this.retried = counter(registry, "redeq.jobs.retried", "Failed attempts scheduled for a retry", topic);
			this.dead = counter(registry, "redeq.jobs.dead", "Jobs moved to DEAD", topic);
			this.cancelled = counter(registry, "redeq.jobs.cancelled", "Jobs cancelled", topic);
			this.lateness = Timer.builder("redeq.jobs.lateness")
				.description("Time from a job's due time to its claim by a consumer, on the Redis clock")
				.tag("topic", topic)
				.publishPercentileHistogram()
				.register(registry);
			this.duration = Timer.builder("redeq.jobs.duration")
				.description("Handler run time")
				.tag("topic", topic)
				.publishPercentileHistogram()
				.register(registry);
		}

		private static Counter counter(MeterRegistry registry, String name, String description, String topic) {
			return Counter.builder(name).description(description).tag("topic", topic).register(registry);
		}

	}

}
