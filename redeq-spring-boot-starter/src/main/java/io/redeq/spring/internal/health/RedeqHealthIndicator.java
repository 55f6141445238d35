package io.redeq.spring.internal.health;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import io.redeq.Redeq;
import io.redeq.RedeqSnapshot;
import io.redeq.TopicStats;

/**
 * Health of redeq as this instance sees it, read from the engine's background
 * {@link Redeq#snapshot() snapshot} so that a health check never waits for Redis and many
 * checks cost no more Redis calls than one. DOWN when the last refresh could not reach
 * Redis, when the snapshot is too old (a refresh hangs), when due jobs wait in the delay
 * index longer than the migration lag threshold (no migrator keeps up), or when READY
 * jobs of a topic this instance consumes wait longer than the ready wait threshold (its
 * consumers are stuck; a paused topic's jobs wait on purpose and do not count). Details
 * name the reasons, paused topics, per-topic counts, owned buckets, migration lag and the
 * instance id.
 *
 * @since 0.1.0
 */
public class RedeqHealthIndicator implements HealthIndicator {

	private final Redeq redeq;

	private final Duration migrationLagThreshold;

	private final Duration readyWaitThreshold;

	private final Clock clock;

	public RedeqHealthIndicator(Redeq redeq, Duration migrationLagThreshold, Duration readyWaitThreshold) {
		this(redeq, migrationLagThreshold, readyWaitThreshold, Clock.systemUTC());
	}

	RedeqHealthIndicator(Redeq redeq, Duration migrationLagThreshold, Duration readyWaitThreshold, Clock clock) {
		this.redeq = redeq;
		this.migrationLagThreshold = migrationLagThreshold;
		this.readyWaitThreshold = readyWaitThreshold;
		this.clock = clock;
	}

	@Override
	public Health health() {
		RedeqSnapshot snapshot = this.redeq.snapshot();
		List<String> problems = new ArrayList<>();
		if (!snapshot.redisReachable()) {
			problems.add("Redis is not reachable: " + snapshot.error());
		}
		else if (isStale(snapshot)) {
			problems.add("statistics were last refreshed at " + snapshot.takenAt()
					+ "; the background refresh does not complete");
		}
		else {
			if (snapshot.migrationLag().compareTo(this.migrationLagThreshold) > 0) {
				problems.add("due jobs have waited " + snapshot.migrationLag().toMillis()
						+ " ms to be migrated (threshold " + this.migrationLagThreshold.toMillis()
						+ " ms); no migrator keeps up: check that at least one instance runs with "
						+ "redeq.migrator.enabled=true");
			}
			snapshot.oldestReadyWait().forEach((topic, wait) -> {
				// A paused topic's jobs wait READY on purpose.
				if (snapshot.subscribedTopics().contains(topic) && !snapshot.pausedTopics().contains(topic)
						&& wait.compareTo(this.readyWaitThreshold) > 0) {
					problems.add("READY jobs of topic '" + topic + "' have waited " + wait.toMillis()
							+ " ms for a handler (threshold " + this.readyWaitThreshold.toMillis()
							+ " ms); its consumers are stuck or too slow");
				}
			});
		}
		Health.Builder builder = problems.isEmpty() ? Health.up() : Health.down();
		if (!problems.isEmpty()) {
			builder.withDetail("problems", problems);
		}
		return builder.withDetail("instanceId", this.redeq.instanceId())
			.withDetail("refreshedAt", snapshot.takenAt().toString())
			.withDetail("migrationLagMillis", snapshot.migrationLag().toMillis())
			.withDetail("ownedBuckets", snapshot.ownedBuckets())
			.withDetail("subscribedTopics", snapshot.subscribedTopics())
			.withDetail("pausedTopics", snapshot.pausedTopics())
			.withDetail("topics", topics(snapshot))
			.build();
	}

	/**
	 * Older than two refresh intervals plus the command timeout: one refresh may take up
	 * to the command timeout, more than that means refreshes no longer complete.
	 */
	private boolean isStale(RedeqSnapshot snapshot) {
		Duration interval = this.redeq.options().statsRefreshInterval();
		Duration limit = interval.multipliedBy(2).plus(this.redeq.options().commandTimeout());
		return snapshot.takenAt().plus(limit).isBefore(Instant.now(this.clock));
	}

	private static Map<String, Map<String, Object>> topics(RedeqSnapshot snapshot) {
		Map<String, Map<String, Object>> topics = new LinkedHashMap<>();
		for (TopicStats stats : snapshot.topics().values()) {
			Map<String, Object> counts = new LinkedHashMap<>();
			counts.put("delayed", stats.delayed());
			counts.put("ready", stats.ready());
			counts.put("inFlight", stats.inFlight());
			counts.put("dead", stats.dead());
			if (snapshot.pausedTopics().contains(stats.topic())) {
				counts.put("paused", true);
			}
			Duration wait = snapshot.oldestReadyWait().get(stats.topic());
			if (wait != null) {
				counts.put("oldestReadyWaitMillis", wait.toMillis());
			}
			topics.put(stats.topic(), counts);
		}
		return topics;
	}

}
