package io.redeq.internal.recurring;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;

/**
 * The ticks of a cron expression, by Spring's {@link CronExpression}: its syntax, and its
 * rules for time zones and daylight saving time (a local time that a DST gap skips has no
 * tick), plus one rule of redeq's: a local time that the fall-back overlap repeats has
 * one tick, at its first occurrence. The only class of redeq-core that touches Spring:
 * {@code spring-context} is an optional dependency, needed only by applications that use
 * cron.
 */
final class CronTicks {

	private static final String CRON_CLASS = "org.springframework.scheduling.support.CronExpression";

	private final CronExpression expression;

	private final ZoneId zone;

	private CronTicks(CronExpression expression, ZoneId zone) {
		this.expression = expression;
		this.zone = zone;
	}

	/**
	 * Parses an expression.
	 * @throws IllegalArgumentException naming the expression and what is wrong with it
	 * @throws IllegalStateException when spring-context is not on the class path
	 */
	static CronTicks parse(String cron, ZoneId zone) {
		if (!available()) {
			throw new IllegalStateException("cron '" + cron + "' needs Spring's CronExpression: add "
					+ "org.springframework:spring-context to the class path, or use every(Duration)");
		}
		try {
			return new CronTicks(CronExpression.parse(cron), zone);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("cron '" + cron + "' is not a valid expression: " + ex.getMessage(), ex);
		}
	}

	/** Whether Spring's CronExpression can be loaded here. */
	static boolean available() {
		try {
			Class.forName(CRON_CLASS, false, CronTicks.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	/**
	 * The first tick strictly after {@code after}, or {@code null} if there is none. A
	 * local time that the fall-back overlap repeats ticks once, at its first occurrence:
	 * Spring's {@code CronExpression} alone would tick at both (the cron fields only see
	 * the local time), which would run a daily job twice that night.
	 */
	@Nullable Instant next(Instant after) {
		ZonedDateTime next = this.expression.next(ZonedDateTime.ofInstant(after, this.zone));
		while (next != null && isRepeatInOverlap(next)) {
			next = this.expression.next(next);
		}
		return (next != null) ? next.toInstant() : null;
	}

	/**
	 * Whether a local time also happened an offset earlier (the second pass of an
	 * overlap).
	 */
	private boolean isRepeatInOverlap(ZonedDateTime time) {
		List<ZoneOffset> offsets = this.zone.getRules().getValidOffsets(time.toLocalDateTime());
		return offsets.size() > 1 && time.getOffset().equals(offsets.get(offsets.size() - 1));
	}

}
