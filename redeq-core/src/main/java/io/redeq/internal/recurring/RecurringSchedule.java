package io.redeq.internal.recurring;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.redeq.Recurring;
import io.redeq.internal.Validate;

/**
 * When a recurring job ticks: a fixed period (the migrate script computes its ticks) or a
 * cron expression in a zone (whose ticks the Java side computes ahead, a few at a time,
 * since Lua cannot read cron). Its {@link #signature()} is what Redis stores and
 * compares: a declaration with the same signature keeps the plan, another one replaces
 * it.
 *
 * @param periodMillis the period, or 0 for cron
 * @param zone the zone of the cron expression
 * @param cron the cron expression, or {@code null} for a period
 */
public record RecurringSchedule(long periodMillis, ZoneId zone, @Nullable String cron) {

	/** Cron ticks planned ahead when declared or refilled. */
	static final int TICKS_AHEAD = 8;

	/**
	 * The schedule of a recurring job, checked.
	 * @param recurring the recurring job
	 * @return its schedule
	 * @throws IllegalArgumentException naming the value that is wrong
	 */
	public static RecurringSchedule of(Recurring recurring) {
		String what = "recurring job in topic '" + recurring.topic() + "'";
		Duration every = recurring.every();
		if (every != null) {
			if (every.compareTo(Recurring.MIN_PERIOD) < 0 || every.compareTo(Validate.MAX_DELAY) > 0) {
				throw new IllegalArgumentException("every of " + what + " must be between " + Recurring.MIN_PERIOD
						+ " and " + Validate.MAX_DELAY + ", but was " + every);
			}
			return new RecurringSchedule(every.toMillis(), recurring.zone(), null);
		}
		String cron = String.valueOf(recurring.cron()).trim();
		if (cron.indexOf('|') >= 0) {
			throw new IllegalArgumentException("cron '" + cron + "' of " + what + " must not contain '|'");
		}
		RecurringSchedule schedule = new RecurringSchedule(0, recurring.zone(), cron);
		if (schedule.cronTicks().next(Instant.now()) == null) {
			throw new IllegalArgumentException("cron '" + cron + "' of " + what + " never ticks");
		}
		return schedule;
	}

	/**
	 * Reads a stored signature back.
	 * @param signature as {@link #signature()} wrote it
	 * @return the schedule
	 */
	public static RecurringSchedule parse(String signature) {
		String[] parts = signature.split("\\|", 4);
		boolean isCron = "C".equals(parts[0]);
		return new RecurringSchedule(Long.parseLong(parts[1]), ZoneId.of(parts[2]), isCron ? parts[3] : null);
	}

	/**
	 * What Redis stores and compares: {@code <kind E|C>|<period ms>|<zone>|<cron>}.
	 * @return the signature
	 */
	public String signature() {
		return (isCron() ? "C" : "E") + "|" + this.periodMillis + "|" + this.zone.getId() + "|"
				+ ((this.cron != null) ? this.cron : "");
	}

	/**
	 * Whether its ticks come from a cron expression (and so from the Java side).
	 * @return {@code true} for cron
	 */
	public boolean isCron() {
		return this.cron != null;
	}

	private CronTicks cronTicks() {
		return CronTicks.parse(String.valueOf(this.cron), this.zone);
	}

	/**
	 * The next cron ticks after {@code from}, epoch ms, ascending. When the first one is
	 * not after {@code now} (no instance refilled the plan for a while), the ticks
	 * between it and {@code now} are left out: the migrate script makes one run of all
	 * ticks due at once, and it only needs the first of them to stand for them.
	 * @param from the last tick planned or taken, epoch ms
	 * @param now the Redis time, epoch ms
	 * @param count how many ticks at most
	 * @return the ticks
	 */
	public List<Long> cronTicksAfter(long from, long now, int count) {
		CronTicks ticks = cronTicks();
		List<Long> out = new ArrayList<>(count + 1);
		Instant next = ticks.next(Instant.ofEpochMilli(from));
		if (next != null && next.toEpochMilli() <= now) {
			out.add(next.toEpochMilli());
			next = ticks.next(Instant.ofEpochMilli(now));
		}
		while (next != null && out.size() < count && !next.isAfter(Validate.LATEST_DUE)) {
			out.add(next.toEpochMilli());
			next = ticks.next(next);
		}
		return out;
	}

}
