package io.redeq.internal.schedule;

import org.jspecify.annotations.Nullable;

import io.redeq.Job;

/**
 * Internal: schedules a job that already lived elsewhere, with the attempts it already
 * used, so that restoring it does not hand it a fresh set. The starter's journal recovery
 * uses it to send again the jobs Redis lost; it is no part of redeq's contract and may
 * change.
 */
@FunctionalInterface
public interface JobRestorer {

	/**
	 * Schedules the job as {@link io.redeq.RedeqClient#schedule(Job)} does and, when this
	 * call stores it, records {@code attemptsUsed} as its attempts so far: its next
	 * delivery is attempt {@code attemptsUsed + 1}, and a job whose attempts are used up
	 * goes to DEAD when it is due.
	 * @param job the job, usually with {@link io.redeq.Duplicate#KEEP}
	 * @param attemptsUsed attempts used before, 0 for none
	 * @return the job's id
	 */
	String restore(Job job, int attemptsUsed);

	/**
	 * As {@link #restore(Job, int)}, with the trace context the job was first scheduled
	 * with (see {@link io.redeq.internal.observation.TraceContext}), so that its runs
	 * continue that trace.
	 * @param job the job
	 * @param attemptsUsed attempts used before, 0 for none
	 * @param traceContext the stored trace context, or {@code null}
	 * @return the job's id
	 */
	default String restore(Job job, int attemptsUsed, @Nullable String traceContext) {
		return restore(job, attemptsUsed);
	}

}
