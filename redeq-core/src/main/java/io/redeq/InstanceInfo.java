package io.redeq;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A live engine of the prefix, as it described itself with its last heartbeat; listed by
 * {@link RedeqAdmin#instances()}. An engine that stops heartbeating (closed, or dead)
 * disappears within {@code redeq.migrator.lock-ttl}. Only engines whose migrator runs
 * heartbeat, so an engine with the migrator off is not listed.
 *
 * @param instanceId the engine's id, the owner of its bucket locks
 * @param hostName the name of the host it runs on, as that host resolves it
 * @param startedAt when the engine was built, by its own clock
 * @param version the redeq version it runs, or {@code null} when its jar does not say
 * @param ownedBuckets the buckets its migrator owned at its last heartbeat, in order
 * @param listeners its running subscriptions, by topic name (at most the first 100)
 * @since 0.1.0
 */
public record InstanceInfo(String instanceId, String hostName, Instant startedAt, @Nullable String version,
		List<Integer> ownedBuckets, List<Listener> listeners) {

	/**
	 * Copies the lists, so the record cannot change.
	 * @param instanceId the engine's id
	 * @param hostName the host's name
	 * @param startedAt when the engine was built
	 * @param version the redeq version, or {@code null}
	 * @param ownedBuckets the owned buckets
	 * @param listeners the running subscriptions
	 */
	public InstanceInfo {
		ownedBuckets = List.copyOf(ownedBuckets);
		listeners = List.copyOf(listeners);
	}

	/**
	 * One running subscription of an instance.
	 *
	 * @param topic the topic it consumes
	 * @param concurrency how many of its jobs run at once at most
	 * @param paused whether the topic was paused (for every instance) at the heartbeat
	 */
	public record Listener(String topic, int concurrency, boolean paused) {
	}

}
