package io.redeq.internal.consumer;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Tells this engine's consumers of a topic, without a round trip to Redis, that its own
 * migrator just made jobs of the topic READY in a bucket.
 *
 * <p>
 * Used in proxy mode only, where consumers cannot block on their signal list and would
 * otherwise find the jobs at their next poll: with it, jobs this instance migrates start
 * as soon as they are READY. Jobs another instance migrates are still found by polling.
 * In the default mode the signal list wakes consumers at once, so the engine passes
 * {@link #NONE} and the migrator's path costs nothing more.
 */
public final class LocalWorkSignals {

	/** Tells nobody: the default mode, where consumers block on their signal list. */
	public static final LocalWorkSignals NONE = new LocalWorkSignals(false);

	private final boolean enabled;

	private final Map<String, List<WorkSignals>> byTopic = new ConcurrentHashMap<>();

	private LocalWorkSignals(boolean enabled) {
		this.enabled = enabled;
	}

	/**
	 * Signals for an engine in proxy mode.
	 * @return a registry consumers join as they start
	 */
	public static LocalWorkSignals create() {
		return new LocalWorkSignals(true);
	}

	/**
	 * Jobs of {@code topic} are READY in {@code bucket}: wakes every local consumer of
	 * the topic that waits for work. Never blocks: the migrator calls it.
	 * @param topic the topic
	 * @param bucket the bucket
	 */
	public void ready(String topic, int bucket) {
		if (!this.enabled) {
			return;
		}
		List<WorkSignals> consumers = this.byTopic.get(topic);
		if (consumers != null) {
			consumers.forEach((signals) -> signals.wakeFor(bucket));
		}
	}

	void join(String topic, WorkSignals signals) {
		if (this.enabled) {
			this.byTopic.compute(topic, (t, consumers) -> {
				List<WorkSignals> joined = (consumers != null) ? consumers : new CopyOnWriteArrayList<>();
				joined.add(signals);
				return joined;
			});
		}
	}

	void leave(String topic, WorkSignals signals) {
		if (this.enabled) {
			this.byTopic.computeIfPresent(topic, (t, consumers) -> {
				consumers.remove(signals);
				return consumers.isEmpty() ? null : consumers;
			});
		}
	}

}
