package io.redeq.internal.redis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one run of the migrate script did on one bucket.
 *
 * @param now the Redis server's time when it ran, epoch ms; when it handed jobs over
 * ahead of their due time, when it ended, so that the consumer's bound of the Redis clock
 * is not looser by the call's own length
 * @param microsIntoNow how far into that millisecond it ran, 0 to 999 µs: with it the
 * next wake-up is planned to the start of the due millisecond
 * @param nextDue due time of the bucket's earliest delayed job, or -1
 * @param nextLeaseExpiry earliest lease deadline of the bucket's in-flight jobs, or -1
 * @param lockHeld whether the caller still holds the bucket's lock (it was renewed)
 * @param migrated due jobs moved to READY, recurring occurrences created included
 * @param reclaimed expired leases returned to READY
 * @param recurringToRefill jobKeys of recurring jobs whose cron plan runs short of ticks
 * @param readyByTopic jobs made READY per topic (for waking that topic's consumers)
 * @param handedOver per offer of the call, in its order, the jobs put IN_FLIGHT for it
 * @param completed per completion the call carried, in its order, whether it completed
 * the job ({@code false}: the claim was no longer ours)
 */
public record MigrateResult(long now, int microsIntoNow, long nextDue, long nextLeaseExpiry, boolean lockHeld,
		int migrated, int reclaimed, List<String> recurringToRefill, Map<String, Integer> readyByTopic,
		List<List<ClaimedJob>> handedOver, List<Boolean> completed) {

	/** Values migrate.lua returns per job handed over (those of claim). */
	private static final int VALUES_PER_JOB = 7;

	/**
	 * Parses migrate.lua's result for a call on {@code bucket} that made {@code offers}
	 * and carried {@code carried} completions: now in microseconds, next due ms (-1
	 * none), next lease deadline ms (-1 none or not checked), 1 if the lock is held (or
	 * was not checked), jobs migrated, leases reclaimed, n, n jobKeys of recurring jobs
	 * to refill, m offers, per offer the number of jobs handed to it and 7 values each, c
	 * completions and a flag each, then pairs topic, jobs made READY. Its 'topics' answer
	 * is not a result: the caller sends the script again first.
	 */
	static MigrateResult fromReply(List<Object> reply, int bucket, List<SlotOffer> offers, int carried) {
		ScriptReply.requireResult(reply, "migrate.lua");
		int refills = (int) ScriptReply.number(reply.get(6));
		List<String> recurringToRefill = new ArrayList<>(refills);
		int i = 7;
		for (; i < 7 + refills; i++) {
			recurringToRefill.add(ScriptReply.text(reply.get(i)));
		}
		int answered = (int) ScriptReply.number(reply.get(i++));
		if (answered != offers.size()) {
			throw new IllegalStateException(
					"migrate.lua answered " + answered + " offers of the " + offers.size() + " it was sent");
		}
		List<List<ClaimedJob>> handedOver = new ArrayList<>(offers.size());
		for (SlotOffer offer : offers) {
			int jobs = (int) ScriptReply.number(reply.get(i++));
			handedOver.add(ClaimResult.jobsOf(reply.subList(i, i + jobs * VALUES_PER_JOB), bucket, offer.topic(),
					offer.token()));
			i += jobs * VALUES_PER_JOB;
		}
		int ended = (int) ScriptReply.number(reply.get(i++));
		if (ended != carried) {
			throw new IllegalStateException(
					"migrate.lua answered " + ended + " completions of the " + carried + " it carried");
		}
		List<Boolean> completed = ScriptReply.perJobFlags(reply.subList(i, i + ended));
		i += ended;
		Map<String, Integer> readyByTopic = new LinkedHashMap<>();
		for (; i + 1 < reply.size(); i += 2) {
			readyByTopic.put(ScriptReply.text(reply.get(i)), (int) ScriptReply.number(reply.get(i + 1)));
		}
		long nowMicros = ScriptReply.number(reply.get(0));
		return new MigrateResult(nowMicros / 1000, (int) (nowMicros % 1000), ScriptReply.number(reply.get(1)),
				ScriptReply.number(reply.get(2)), ScriptReply.isOne(reply.get(3)),
				(int) ScriptReply.number(reply.get(4)), (int) ScriptReply.number(reply.get(5)), recurringToRefill,
				readyByTopic, Collections.unmodifiableList(handedOver), completed);
	}

	/** The Redis time the script ran at, in microseconds since the epoch. */
	public long nowMicros() {
		return this.now * 1_000L + this.microsIntoNow;
	}

	/**
	 * How long after this call ran a Redis time comes, in nanoseconds, 0 if it has come:
	 * a difference of two Redis times, never of a local clock and Redis's.
	 * @param epochMillis a Redis time, epoch ms
	 */
	public long nanosUntil(long epochMillis) {
		return Math.max(0, (epochMillis - this.now) * 1_000_000L - this.microsIntoNow * 1_000L);
	}

	/** Whether a full batch was moved, so more may be due right now. */
	public boolean mayHaveMore(int batchSize) {
		return this.migrated >= batchSize || this.reclaimed >= batchSize;
	}

}
