package io.redeq;

import java.util.List;
import java.util.Set;

/**
 * Operates queues: exact counts per topic, and inspection, requeue and purge of dead
 * jobs.
 *
 * @since 0.1.0
 */
public interface RedeqAdmin {

	/**
	 * Every topic that has had a job under this prefix.
	 * @return the topic names
	 */
	Set<String> topics();

	/**
	 * Exact counts of one topic, summed over all buckets.
	 * @param topic the topic
	 * @return its counts
	 */
	TopicStats stats(String topic);

	/**
	 * A page of a topic's dead jobs, most recent first.
	 * @param topic the topic
	 * @param offset how many to skip, {@code >= 0}
	 * @param limit how many to return, between 1 and 1000
	 * @return the page, empty past the last dead job
	 */
	List<DeadJob> deadJobs(String topic, int offset, int limit);

	/**
	 * Gives a dead job a fresh set of attempts and makes it ready at once.
	 * @param topic the job's topic
	 * @param id the job's id
	 * @return {@code false} if no dead job has that id
	 */
	boolean requeueDead(String topic, String id);

	/**
	 * Requeues every dead job of the topic.
	 * @param topic the topic
	 * @return the number of jobs requeued
	 */
	long requeueAllDead(String topic);

	/**
	 * Deletes every dead job of the topic.
	 * @param topic the topic
	 * @return the number of jobs deleted
	 */
	long purgeDead(String topic);

}
