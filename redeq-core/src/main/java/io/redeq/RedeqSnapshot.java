package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * What one engine last saw of its queues, refreshed in the background at a bounded rate
 * so that metrics scrapes and health checks never cause a burst of Redis calls. See
 * {@link Redeq#snapshot()}.
 *
 * @param takenAt when the snapshot was taken (local clock)
 * @param redisReachable whether the last refresh reached Redis
 * @param error why it did not, or {@code null}
 * @param topics exact counts per topic
 * @param migrationLag how long the most overdue delayed job has waited to be migrated
 * (zero when the migrators keep up)
 * @param oldestReadyWait per topic with READY jobs, how long the one that waited longest
 * has been due
 * @param ownedBuckets buckets this instance migrates
 * @param subscribedTopics topics this instance consumes
 * @param pausedTopics topics paused with {@link RedeqAdmin#pause(String)}, on every
 * instance
 * @since 0.1.0
 */
public record RedeqSnapshot(Instant takenAt, boolean redisReachable, @Nullable String error,
		Map<String, TopicStats> topics, Duration migrationLag, Map<String, Duration> oldestReadyWait,
		List<Integer> ownedBuckets, Set<String> subscribedTopics, Set<String> pausedTopics) {

	/**
	 * A snapshot that knows of no paused topic.
	 * @param takenAt when the snapshot was taken (local clock)
	 * @param redisReachable whether the last refresh reached Redis
	 * @param error why it did not, or {@code null}
	 * @param topics exact counts per topic
	 * @param migrationLag how long the most overdue delayed job has waited
	 * @param oldestReadyWait per topic with READY jobs, how long the oldest has been due
	 * @param ownedBuckets buckets this instance migrates
	 * @param subscribedTopics topics this instance consumes
	 */
	public RedeqSnapshot(Instant takenAt, boolean redisReachable, @Nullable String error,
			Map<String, TopicStats> topics, Duration migrationLag, Map<String, Duration> oldestReadyWait,
			List<Integer> ownedBuckets, Set<String> subscribedTopics) {
		this(takenAt, redisReachable, error, topics, migrationLag, oldestReadyWait, ownedBuckets, subscribedTopics,
				Set.of());
	}

	/**
	 * The snapshot before the first refresh.
	 * @return a snapshot with no topics, taken at the epoch
	 */
	public static RedeqSnapshot empty() {
		return new RedeqSnapshot(Instant.EPOCH, false, "not refreshed yet", Map.of(), Duration.ZERO, Map.of(),
				List.of(), Set.of());
	}

}
