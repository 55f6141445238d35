package io.redeq.internal.consumer;

import java.lang.reflect.Type;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import io.redeq.Backoff;
import io.redeq.internal.control.RateLimit;

/**
 * The resolved settings of one subscription.
 *
 * @param topic the topic
 * @param payloadType the type payloads are read into
 * @param concurrency handlers that may run at once
 * @param maxAttempts deliveries before a failing job is DEAD
 * @param timeout how long a handler may run before it is interrupted and the attempt
 * fails
 * @param lease how long an in-flight job stays claimed without renewal; renewed every
 * third of it
 * @param backoff the wait between attempts
 * @param rateLimit job starts allowed per window across all instances, or {@code null}
 */
public record ConsumerSettings(String topic, Type payloadType, int concurrency, int maxAttempts, Duration timeout,
		Duration lease, Backoff backoff, @Nullable RateLimit rateLimit) {
}
