/**
 * Reports: a daily sales report declared in application.yml
 * ({@code redeq.recurring.daily-sales}), run by a listener on every instance's behalf
 * exactly once per tick; and reports requested over HTTP and built on demand by pulling
 * due requests with {@code RedeqClient.poll}, without a listener.
 */
@NullMarked
package io.redeq.example.report;

import org.jspecify.annotations.NullMarked;
