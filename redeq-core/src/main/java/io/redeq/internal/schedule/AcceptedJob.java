package io.redeq.internal.schedule;

import org.jspecify.annotations.Nullable;

import io.redeq.Duplicate;

/**
 * Internal: one job a schedule call sent and Redis answered for, exactly as Redis holds
 * it (or, when {@link #kept()}, as the caller asked for it while Redis kept the job it
 * had). The starter's journal records it; no part of redeq's contract, and it may change.
 *
 * @param topic the job's topic
 * @param id the job's id
 * @param payload the payload as the JSON text Redis stores, written by the engine's codec
 * on the caller's thread when the call was made
 * @param dueAt when the job is due, epoch milliseconds on the Redis server's clock;
 * meaningless when {@link #kept()}
 * @param onDuplicate the duplicate policy the job was scheduled with
 * @param timeoutMillis the job's own handler timeout in ms, 0 for the subscription's
 * @param maxAttempts the job's own attempts, 0 for the subscription's
 * @param priority the job's priority, 0 to 9
 * @param traceContext the trace context stored beside the payload, or {@code null}
 * @param version the version the job was sent as (see {@link JournalHooks#versions}), or
 * {@code null} when none was asked for
 * @param acceptedAt the Redis time (ms) at which Redis stored (or kept) the job: the
 * order of two schedules of one id, which reach the journal through different instances
 * @param kept whether Redis already held a job under this id and kept it
 * ({@link Duplicate#KEEP}): then nothing of this call was stored
 */
public record AcceptedJob(String topic, String id, String payload, long dueAt, Duplicate onDuplicate,
		long timeoutMillis, int maxAttempts, int priority, @Nullable String traceContext, @Nullable String version,
		long acceptedAt, boolean kept) {

}
