package io.redeq.internal.schedule;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Internal: what a bulk cancel did, for the starter's journal, which records each job it
 * cancelled. A bulk cancel sends one script per bucket; when one fails, the others may
 * still have cancelled jobs, and those are listed with the failure.
 *
 * @param ids the ids of the jobs cancelled
 * @param failure the first failure of a bucket's script, or {@code null}
 */
public record CancelledJobs(List<String> ids, @Nullable RuntimeException failure) {

	/**
	 * How many were cancelled, or the failure.
	 * @return the number of jobs cancelled
	 */
	public long countOrThrow() {
		RuntimeException failure = this.failure;
		if (failure != null) {
			throw failure;
		}
		return this.ids.size();
	}

}
