/**
 * The reminder example: reminders sent by a listener that fails now and then, retried
 * with backoff, and dead letters listed over HTTP.
 */
@NullMarked
package io.redeq.example.reminder;

import org.jspecify.annotations.NullMarked;
