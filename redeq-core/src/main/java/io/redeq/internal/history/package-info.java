/**
 * Job history that all instances share: counts of scheduled, completed, retried and dead
 * jobs per topic, per minute for a day and per hour for a month, kept in Redis for the
 * dashboard's charts. Not API.
 */
@NullMarked
package io.redeq.internal.history;

import org.jspecify.annotations.NullMarked;
