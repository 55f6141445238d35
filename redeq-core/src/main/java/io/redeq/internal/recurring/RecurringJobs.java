package io.redeq.internal.recurring;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.Recurring;
import io.redeq.RecurringInfo;
import io.redeq.internal.JobIds;
import io.redeq.internal.LogOnce;
import io.redeq.internal.Validate;
import io.redeq.internal.WakeUps;
import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.RecurringStore;

/**
 * Declares, cancels, lists and refills recurring jobs. A recurring job lives in the
 * bucket of its jobKey {@code <topic>:<id>}, the bucket of its occurrences, so that the
 * migrate script can turn a tick into an occurrence and plan the next tick in one script
 * (see {@code lib/recurring.lua} and docs/recurring.md).
 */
public final class RecurringJobs {

	private static final Logger logger = LoggerFactory.getLogger(RecurringJobs.class);

	private static final String PLAN = "~p:";

	private final RecurringStore store;

	private final WakeUps wakeUps;

	private final LogOnce refillFailures = new LogOnce(logger);

	public RecurringJobs(RecurringStore store, WakeUps wakeUps) {
		this.store = store;
		this.wakeUps = wakeUps;
	}

	/**
	 * The bucket count of the layout these recurring jobs are kept in.
	 * @return the count
	 */
	public int buckets() {
		return this.store.keys().buckets();
	}

	/**
	 * Declares a recurring job, or replaces its schedule, or keeps it when the schedule
	 * is the same.
	 * @param recurring the recurring job, already built (and so checked)
	 * @param payload its payload as JSON
	 * @return its id
	 */
	public String declare(Recurring recurring, String payload) {
		RecurringSchedule schedule = RecurringSchedule.of(recurring);
		String id = (recurring.id() != null) ? recurring.id() : JobIds.next();
		String jobKey = KeySpace.jobKey(recurring.topic(), id);
		int bucket = this.store.keys().bucketOf(jobKey);
		List<Long> ticks = List.of();
		if (schedule.isCron()) {
			long now = this.store.redisTime();
			ticks = schedule.cronTicksAfter(now, now, RecurringSchedule.TICKS_AHEAD);
		}
		RecurringStore.Declared declared = this.store.declare(bucket, jobKey, schedule.signature(),
				missedCode(recurring.missed()), payload, ticks);
		if (declared.earliest()) {
			this.wakeUps.earlierJob(bucket, declared.nextTick());
		}
		logger.debug("Recurring job '{}' in topic '{}' {}; next tick {}", id, recurring.topic(), declared.status(),
				Instant.ofEpochMilli(declared.nextTick()));
		return id;
	}

	/**
	 * Removes a recurring job; an occurrence already created stays.
	 * @param topic its topic
	 * @param id its id
	 * @return {@code false} if it was not declared
	 */
	public boolean cancel(String topic, String id) {
		Validate.topic(topic);
		String jobKey = KeySpace.jobKey(topic, Validate.id(topic, id));
		return this.store.cancel(this.store.keys().bucketOf(jobKey), jobKey);
	}

	/**
	 * Every declared recurring job, by topic and id; one HGETALL per bucket, pipelined.
	 * @return the recurring jobs
	 */
	public List<RecurringInfo> list() {
		List<RecurringInfo> all = new ArrayList<>();
		for (Map<String, String> fields : this.store.allBuckets()) {
			fields.forEach((field, definition) -> {
				if (!field.startsWith(PLAN)) {
					all.add(info(field, definition, fields.get(PLAN + field)));
				}
			});
		}
		all.sort(Comparator.comparing(RecurringInfo::topic).thenComparing(RecurringInfo::id));
		return all;
	}

	/**
	 * Plans more cron ticks for recurring jobs whose plan ran short, as the migrate
	 * script asked: off the hot path, and harmless when another instance did it first. A
	 * failure is logged once; the migrate script asks again.
	 * @param bucket their bucket
	 * @param jobKeys the recurring jobs
	 * @param now the Redis time of the migrate call, epoch ms
	 * @return the earliest tick a trigger was moved to, or -1
	 */
	public long refill(int bucket, List<String> jobKeys, long now) {
		long earliest = -1;
		for (String jobKey : jobKeys) {
			try {
				long moved = refillOne(bucket, jobKey, now);
				if (moved > 0 && (earliest < 0 || moved < earliest)) {
					earliest = moved;
				}
				this.refillFailures.recovered("Cron ticks of recurring jobs are planned again (last: {})", jobKey);
			}
			catch (RuntimeException ex) {
				this.refillFailures.failed("Cannot plan the next cron ticks of recurring job " + jobKey
						+ "; its occurrences wait until an instance can", ex);
			}
		}
		return earliest;
	}

	private long refillOne(int bucket, String jobKey, long now) {
		String[] stored = this.store.definitionAndPlan(bucket, jobKey);
		if (stored[0] == null || stored[1] == null) {
			return -1; // cancelled meanwhile
		}
		String[] definition = stored[0].split("\\|", 6);
		String signature = String.join("|", definition[0], definition[1], definition[2], definition[3]);
		RecurringSchedule schedule = RecurringSchedule.parse(signature);
		long[] plan = plan(stored[1]);
		long tail = (plan.length > 1) ? plan[plan.length - 1] : plan[0];
		List<Long> ticks = schedule.cronTicksAfter(tail, now, RecurringSchedule.TICKS_AHEAD);
		if (ticks.isEmpty()) {
			return -1;
		}
		return this.store.refill(bucket, jobKey, signature, tail, ticks);
	}

	/** A plan {@code "<covered>|<t1>,<t2>,..."} as {@code [covered, t1, t2, ...]}. */
	private static long[] plan(String plan) {
		String[] parts = plan.split("[|,]");
		List<Long> values = new ArrayList<>();
		for (String part : parts) {
			if (!part.isEmpty()) {
				values.add(Long.parseLong(part));
			}
		}
		return values.stream().mapToLong(Long::longValue).toArray();
	}

	private static RecurringInfo info(String jobKey, String definition, String plan) {
		String[] parts = definition.split("\\|", 6);
		RecurringSchedule schedule = RecurringSchedule.parse(String.join("|", parts[0], parts[1], parts[2], parts[3]));
		long[] ticks = (plan != null) ? plan(plan) : new long[0];
		Instant next = (ticks.length > 1) ? Instant.ofEpochMilli(ticks[1]) : null;
		int colon = jobKey.indexOf(':');
		return new RecurringInfo(jobKey.substring(0, colon), jobKey.substring(colon + 1), schedule.cron(),
				schedule.isCron() ? null : Duration.ofMillis(schedule.periodMillis()), schedule.zone(),
				"S".equals(parts[4]) ? Recurring.Missed.SKIP : Recurring.Missed.RUN_ONCE, parts[5], next);
	}

	private static String missedCode(Recurring.Missed missed) {
		return (missed == Recurring.Missed.SKIP) ? "S" : "O";
	}

}
