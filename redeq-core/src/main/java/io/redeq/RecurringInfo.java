package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

import org.jspecify.annotations.Nullable;

/**
 * A declared recurring job, as {@link RedeqAdmin#recurring()} lists it.
 *
 * @param topic the topic of its occurrences
 * @param id its id, the job id of each occurrence
 * @param cron its cron expression, or {@code null} when it runs every {@code every}
 * @param every its period, or {@code null} when it follows {@code cron}
 * @param zone the zone its cron expression is read in
 * @param missed what happens to ticks that passed while no instance ran
 * @param payload the payload of each occurrence, as JSON text
 * @param nextTick the next tick planned, or {@code null} while no instance has planned it
 * @since 0.1.0
 */
public record RecurringInfo(String topic, String id, @Nullable String cron, @Nullable Duration every, ZoneId zone,
		Recurring.Missed missed, String payload, @Nullable Instant nextTick) {
}
