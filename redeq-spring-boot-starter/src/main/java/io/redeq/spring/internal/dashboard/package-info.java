/**
 * The web dashboard: server-rendered pages of the queues, their jobs, dead letters and
 * the instances, each a small model drawn by a Mustache template ({@code templates/}
 * beside these classes), with actions for signed-in users with the action role behind a
 * signed CSRF token. Served on Spring MVC (servlet) applications when
 * {@code redeq.dashboard.enabled} is set. Not API.
 */
@NullMarked
package io.redeq.spring.internal.dashboard;

import org.jspecify.annotations.NullMarked;
