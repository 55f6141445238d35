package io.redeq.internal.redis;

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

	/**
	 * Parses inspect.lua's result: now, due ms of the earliest delayed job (-1 none),
	 * number of count fields n, then n pairs "{@code <topic>:<D|R|I|X>}", count, then
	 * pairs topic, due ms of the oldest READY job. Its 'topics' answer is not a result:
	 * the caller sends the script again first.
	 */
	static BucketInspection fromReply(List<Object> reply) {
		ScriptReply.requireResult(reply, "inspect.lua");
		long now = ScriptReply.number(reply.get(0));
		long earliestDue = ScriptReply.number(reply.get(1));
		int fields = (int) ScriptReply.number(reply.get(2));
		Map<String, Long> counts = new LinkedHashMap<>();
		int i = 3;
		for (int f = 0; f < fields; f++, i += 2) {
			counts.put(ScriptReply.text(reply.get(i)), ScriptReply.number(reply.get(i + 1)));
		}
		Map<String, Long> oldestReady = new LinkedHashMap<>();
		for (; i + 1 < reply.size(); i += 2) {
			oldestReady.put(ScriptReply.text(reply.get(i)), ScriptReply.number(reply.get(i + 1)));
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
