/**
 * Forwarding of a topic's due jobs to RabbitMQ: a consumer of the topic that publishes
 * each job with publisher confirms and completes it once the broker confirmed it. Not
 * API.
 */
@NullMarked
package io.redeq.spring.internal.forward;

import org.jspecify.annotations.NullMarked;
