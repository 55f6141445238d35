package io.redeq.internal.migrator;

import java.util.List;

import io.redeq.internal.recurring.RecurringJobs;

/**
 * What the {@link Migrator} needs of the recurring jobs: plan the next cron ticks of
 * those a migrate found running short ({@link RecurringJobs#refill}).
 */
@FunctionalInterface
interface CronRefills {

	/**
	 * Plans more ticks of the recurring jobs {@code jobKeys} of {@code bucket}.
	 * @param now the Redis time of the migrate that asked, epoch ms
	 * @return the earliest due time a refill moved, or -1
	 */
	long refill(int bucket, List<String> jobKeys, long now);

}
