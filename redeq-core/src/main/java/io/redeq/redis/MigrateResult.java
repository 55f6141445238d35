package io.redeq.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one run of the migrate script did on one bucket.
 *
 * @param now the Redis server's time when it ran, epoch ms
 * @param nextDue due time of the bucket's earliest delayed job, or -1
 * @param nextLeaseExpiry earliest lease deadline of the bucket's in-flight jobs, or -1
 * @param lockHeld whether the caller still holds the bucket's lock (it was renewed)
 * @param migrated due jobs moved to READY, recurring occurrences created included
 * @param reclaimed expired leases returned to READY
 * @param recurringToRefill jobKeys of recurring jobs whose cron plan runs short of ticks
 * @param readyByTopic jobs made READY per topic (for waking that topic's consumers)
 */
public record MigrateResult(long now, long nextDue, long nextLeaseExpiry, boolean lockHeld, int migrated, int reclaimed,
		List<String> recurringToRefill, Map<String, Integer> readyByTopic) {

	/**
	 * Parses migrate.lua's result: now, next due ms (-1 none), next lease deadline ms (-1
	 * none or not checked), 1 if the lock is held (or was not checked), jobs migrated,
	 * leases reclaimed, n, n jobKeys of recurring jobs to refill, then pairs topic, jobs
	 * made READY. Its 'topics' answer is not a result: the caller sends the script again
	 * first.
	 */
	static MigrateResult fromReply(List<Object> reply) {
		ScriptReply.requireResult(reply, "migrate.lua");
		int refills = (int) ScriptReply.number(reply.get(6));
		List<String> recurringToRefill = new ArrayList<>(refills);
		for (int i = 7; i < 7 + refills; i++) {
			recurringToRefill.add(ScriptReply.text(reply.get(i)));
		}
		Map<String, Integer> readyByTopic = new LinkedHashMap<>();
		for (int i = 7 + refills; i + 1 < reply.size(); i += 2) {
			readyByTopic.put(ScriptReply.text(reply.get(i)), (int) ScriptReply.number(reply.get(i + 1)));
		}
		return new MigrateResult(ScriptReply.number(reply.get(0)), ScriptReply.number(reply.get(1)),
				ScriptReply.number(reply.get(2)), ScriptReply.isOne(reply.get(3)),
				(int) ScriptReply.number(reply.get(4)), (int) ScriptReply.number(reply.get(5)), recurringToRefill,
				readyByTopic);
	}

	/** Whether a full batch was moved, so more may be due right now. */
	public boolean mayHaveMore(int batchSize) {
		return this.migrated >= batchSize || this.reclaimed >= batchSize;
	}

}
