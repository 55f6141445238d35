/**
 * The web dashboard: server-rendered pages of the queues, their jobs, dead letters and
 * this instance, with actions behind CSRF protection. Served on Spring MVC (servlet)
 * applications when {@code redeq.dashboard.enabled} is set. Not API.
 */
@NullMarked
package io.redeq.spring.boot.dashboard;

import org.jspecify.annotations.NullMarked;
