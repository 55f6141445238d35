/**
 * The recurring-job example: a daily sales report declared in application.yml
 * ({@code redeq.recurring.daily-sales}), run by a listener on every instance's behalf
 * exactly once per tick.
 */
@NullMarked
package io.redeq.example.report;

import org.jspecify.annotations.NullMarked;
