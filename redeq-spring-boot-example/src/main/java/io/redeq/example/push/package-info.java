/**
 * The forwarding example (profile {@code rabbit}): push reminders are scheduled in redeq,
 * and at their due time go to RabbitMQ ({@code redeq.topics.push.remind.forward.*}),
 * where a push service, here a {@code @RabbitListener}, takes them.
 */
@NullMarked
package io.redeq.example.push;

import org.jspecify.annotations.NullMarked;
