package io.redeq.internal.schedule;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import io.redeq.Job;
import io.redeq.internal.Validate;

/**
 * Internal: what the starter's journal needs from the engine's scheduling, so that the
 * rows it keeps hold what Redis holds. No part of redeq's contract; it may change.
 */
public final class JournalHooks {

	private final AsyncJobScheduler scheduler;

	JournalHooks(AsyncJobScheduler scheduler) {
		this.scheduler = scheduler;
	}

	/**
	 * Tells {@code listener} of each job a schedule call sent (not a restore): once Redis
	 * stored it, or kept the job it had. It runs on the thread that reads Redis's answer,
	 * before the caller's future completes: it must not block, and what it throws is
	 * logged, never the caller's failure. One listener at most; a second replaces the
	 * first.
	 * @param listener the listener, or {@code null} for none
	 */
	public void onAccepted(@Nullable Consumer<AcceptedJob> listener) {
		this.scheduler.acceptedListener(listener);
	}

	/**
	 * Names the version of each job a schedule call or a restore sends, stored with the
	 * job in Redis and told to
	 * {@link io.redeq.internal.consumer.VersionedLifecycleListener}s with each step of
	 * its deliveries: the journal keys a job's row by topic and id, and a job replaced
	 * under its id while it runs must not have the old version's outcome written over the
	 * row of the new one. Called on the caller's thread as the call is made; it must
	 * return 1 to {@link io.redeq.internal.redis.JobSettings#MAX_VERSION_LENGTH} letters,
	 * digits, '-' or '_'. One function at most; a second replaces the first.
	 * @param versions the function, or {@code null} for none (jobs carry no version)
	 */
	public void versions(@Nullable Function<Job, String> versions) {
		this.scheduler.versions(versions);
	}

	/**
	 * Gives jobs the trace context they were observed with when they were first
	 * scheduled, before they are sent: a job the starter's outbox recorded in a
	 * transaction and sent after the commit, or by the relay on another instance, keeps
	 * the trace of the request that scheduled it. A job given one is not observed again
	 * when sent. Called on the caller's thread as the call is made; {@code null} for a
	 * job that has none. One function at most; a second replaces the first.
	 * @param traceContexts the function, or {@code null} for none
	 */
	public void traceContexts(@Nullable Function<Job, @Nullable String> traceContexts) {
		this.scheduler.traceContexts(traceContexts);
	}

	/**
	 * Observes the scheduling of a job now, on the caller's thread, for a job that is
	 * sent later (an outbox row): the observation's parent is the caller's current one.
	 * @param topic the job's topic
	 * @param id the job's id
	 * @return the trace context to send the job with (see {@link #traceContexts}), or
	 * {@code null} when observation is off or no tracer wrote one
	 */
	public @Nullable String traceContextHere(String topic, String id) {
		return this.scheduler.traceContextHere(topic, id);
	}

	/**
	 * The payload of a job as the JSON text Redis would store, written by the engine's
	 * codec. The size limit is not checked here: a schedule call checks it.
	 * @param job the job, with its id
	 * @return the JSON text
	 * @throws IllegalArgumentException if the codec cannot write it
	 */
	public String payloadJson(Job job) {
		Objects.requireNonNull(job, "job must not be null");
		String topic = Validate.topic(job.topic());
		return this.scheduler.encodePayload(topic, String.valueOf(job.id()), job.payload());
	}

}
