/**
 * Recurring jobs: their schedules (periods, and cron ticks by Spring's
 * {@code CronExpression}), declaration, listing and the refill of cron plans. Each tick
 * becomes an occurrence inside the migrate script (see {@code lib/recurring.lua}). Not
 * API.
 */
@NullMarked
package io.redeq.internal.recurring;

import org.jspecify.annotations.NullMarked;
