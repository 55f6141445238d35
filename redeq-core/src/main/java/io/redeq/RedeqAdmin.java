package io.redeq;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Operates queues: exact counts per topic, pages of jobs in each state with their
 * payloads, and requeue and purge of dead jobs.
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
	 * A page of a topic's jobs in one state, payloads included: DELAYED by due time,
	 * READY earliest due first (the order consumers claim them in), IN_FLIGHT by lease
	 * deadline, DEAD most recent first. A call reads {@code offset + limit} index entries
	 * per bucket and {@code limit} payloads, whatever the topic's size; DELAYED and
	 * IN_FLIGHT jobs share an index per bucket with other topics, of which a call looks
	 * at no more than 20,000 entries per bucket.
	 * @param topic the topic
	 * @param state the state
	 * @param offset how many to skip, {@code >= 0}
	 * @param limit how many to return, between 1 and 1000; {@code offset + limit} at most
	 * 10,000
	 * @return the page, empty past the last job
	 * @since 0.1.0
	 */
	List<JobView> jobs(String topic, JobState state, int offset, int limit);

	/**
	 * One job with its payload and, if an attempt failed, the last error.
	 * @param topic the job's topic
	 * @param id the job's id
	 * @return the job, or empty if no waiting, running or dead job has that id
	 * @since 0.1.0
	 */
	Optional<JobView> job(String topic, String id);

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
	 * Pauses a topic on every instance: within about a second no consumer claims its
	 * jobs; running handlers finish. Scheduling and migration go on, so its jobs wait
	 * READY. Stored in Redis: it holds across restarts until {@link #resume(String)}.
	 * @param topic the topic
	 */
	void pause(String topic);

	/**
	 * Lets every instance claim a paused topic's jobs again, within about a second.
	 * @param topic the topic
	 */
	void resume(String topic);

	/**
	 * Whether a topic is paused, read from Redis.
	 * @param topic the topic
	 * @return {@code true} if paused
	 */
	boolean isPaused(String topic);

	/**
	 * Makes a DELAYED job due now: it becomes READY at once, keeping its priority, and
	 * the topic's consumers are told.
	 * @param topic the job's topic
	 * @param id the job's id
	 * @return {@code true} if the job was DELAYED and is READY now; {@code false} if no
	 * job has that id or it was not DELAYED (already READY, running or DEAD)
	 */
	boolean promote(String topic, String id);

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

	/**
	 * Deletes every job of the topic in one state: DELAYED, READY or DEAD (as
	 * {@link #purgeDead(String)}). Deleting a waiting job is cancelling it. Runs in short
	 * steps, each one script on one bucket that deletes at most 1,000 jobs, so even a
	 * million jobs never block Redis for long. Jobs that enter the state while it runs
	 * may stay. With the journal on, each DELAYED or READY job deleted is journaled as
	 * cancelled.
	 * @param topic the topic
	 * @param state {@link JobState#DELAYED}, {@link JobState#READY} or
	 * {@link JobState#DEAD}; a running ({@link JobState#IN_FLIGHT}) job cannot be purged
	 * @return the number of jobs deleted
	 * @throws IllegalArgumentException for {@link JobState#IN_FLIGHT}
	 */
	long purge(String topic, JobState state);

	/**
	 * Every declared recurring job, by topic and id.
	 * @return the recurring jobs
	 * @since 0.1.0
	 */
	List<RecurringInfo> recurring();

	/**
	 * Removes a recurring job, as {@link RedeqClient#cancelRecurring(String, String)}
	 * does.
	 * @param topic its topic
	 * @param id its id
	 * @return {@code false} if no recurring job has that id
	 * @since 0.1.0
	 */
	boolean cancelRecurring(String topic, String id);

	/**
	 * Every live engine of this prefix with what it said of itself at its last heartbeat
	 * (every third of {@code redeq.migrator.lock-ttl}): host, start, version, owned
	 * buckets, listeners. One read per live instance; an engine that stopped heartbeating
	 * is gone within {@code lock-ttl}. Ordered by instance id.
	 * @return the live instances
	 * @since 0.1.0
	 */
	List<InstanceInfo> instances();

	/**
	 * Changes the number of buckets the prefix's delay index is split into, while the
	 * prefix's instances, producers and consumers keep running: moves every job (in
	 * whatever state: delayed, ready, dead, with its attempts and last error; in flight
	 * once its handler finished, or at once if its lease expired) and every recurring
	 * definition into its bucket of the new layout, then records the new count in Redis,
	 * and returns once every job is there.
	 *
	 * <p>
	 * While it runs, the old buckets refuse what would disturb the move: instances stop
	 * migrating and claiming (jobs that were running finish and complete as usual), and a
	 * call that meets a moving bucket ({@code schedule}, {@code cancel},
	 * {@code reschedule}, {@code find}, this admin's operations) waits until the change
	 * is over, up to 30 seconds, and then runs on the new layout, where it finds the
	 * moved jobs. Every running engine then follows the new count by itself, without a
	 * restart; an engine started later follows the recorded count whatever
	 * {@code redeq.buckets} says, and logs that once. Each job is copied into its new
	 * bucket before it is removed from its old one, both idempotent, so a change that is
	 * interrupted loses nothing: call it again with the same count to finish it (until
	 * then, the instances hold).
	 * @param buckets the new count, a power of two from 1 to
	 * {@value RedeqOptions#MAX_BUCKETS}
	 * @return the number of jobs moved to another bucket (0 when the count is already
	 * {@code buckets})
	 * @throws IllegalArgumentException if {@code buckets} is not a power of two or out of
	 * range
	 * @throws IllegalStateException if an unfinished change moves to another count, or
	 * jobs still run in the old buckets when the change's time bound ran out (call it
	 * again to finish)
	 * @since 0.1.0
	 */
	long changeBucketCount(int buckets);

	/**
	 * Re-sends every job that the journal in the application's database holds as pending
	 * and that Redis no longer has (Redis lost its data), each with its journaled due
	 * time and the attempts it already used (its next delivery is the next attempt). A
	 * job Redis still holds is left alone, so no job gets a second copy. Available with
	 * the Spring Boot starter and {@code redeq.journal.enabled=true}.
	 * @return the number of jobs re-sent
	 * @throws IllegalStateException if no journal is configured
	 */
	default long recoverFromJournal() {
		throw new IllegalStateException("redeq has no journal to recover from: "
				+ "set redeq.journal.enabled=true with a DataSource (Spring Boot starter)");
	}

}
