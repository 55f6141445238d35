/**
 * redeq's public API: schedule delayed jobs with {@link io.redeq.RedeqClient}, consume
 * them with {@link io.redeq.Redeq#subscribe}, and operate queues with
 * {@link io.redeq.RedeqAdmin}.
 */
@NullMarked
package io.redeq;

import org.jspecify.annotations.NullMarked;
