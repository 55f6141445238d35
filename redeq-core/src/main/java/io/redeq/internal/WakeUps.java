package io.redeq.internal;

/**
 * Where the scheduler reports that a bucket got a job earlier than any it had, so that
 * the bucket's migrator wakes for it now instead of at its next sweep. A hint: losing one
 * delays, never loses.
 */
@FunctionalInterface
public interface WakeUps {

	void earlierJob(int bucket, long dueAtMillis);

}
