package io.redeq.redis;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the inspect script saw in one bucket.
 *
 * @param now Redis time, epoch ms
 * @param earliestDue due time of the earliest delayed job, or -1
 * @param counts {@code <topic>:<D|R|I|X>} → count
 * @param oldestReadyDue per topic with READY jobs, the due time of the one that waited
 * longest
 */
public record BucketInspection(long now, long earliestDue, Map<String, Long> counts, Map<String, Long> oldestReadyDue) {

	static BucketInspection of(List<Object> reply) {
		long now = RedisJobStore.asLong(reply.get(0));
		long earliestDue = RedisJobStore.asLong(reply.get(1));
		int fields = (int) RedisJobStore.asLong(reply.get(2));
		Map<String, Long> counts = new LinkedHashMap<>();
		int i = 3;
		for (int f = 0; f < fields; f++, i += 2) {
			counts.put(String.valueOf(reply.get(i)), RedisJobStore.asLong(reply.get(i + 1)));
		}
		Map<String, Long> oldestReady = new LinkedHashMap<>();
		for (; i + 1 < reply.size(); i += 2) {
			oldestReady.put(String.valueOf(reply.get(i)), RedisJobStore.asLong(reply.get(i + 1)));
		}
		return new BucketInspection(now, earliestDue, counts, oldestReady);
	}

	/**
	 * How long the earliest delayed job is overdue (waiting for the migrator), 0 if none
	 * is.
	 */
	public long migrationLagMillis() {
		return (this.earliestDue >= 0) ? Math.max(0, this.now - this.earliestDue) : 0;
	}

}
