package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Schedules, cancels, reschedules and looks up delayed jobs. Thread-safe; one per
 * application (a bean in Spring, {@link Redeq#client()} without Spring).
 *
 * <p>
 * Delays are measured on the Redis server's clock, so instances with a wrong clock still
 * schedule correctly. A call that returns normally has been applied in Redis.
 *
 * @since 0.1.0
 */
public interface RedeqClient {

	/**
	 * Schedules a job with a generated id, due {@code delay} after Redis accepts it.
	 * @param topic the topic whose subscribers run the job
	 * @param payload the payload, or {@code null}
	 * @param delay the delay, not negative
	 * @return the generated id
	 */
	String schedule(String topic, @Nullable Object payload, Duration delay);

	/**
	 * Schedules a job with a generated id, due at {@code dueAt}.
	 * @param topic the topic whose subscribers run the job
	 * @param payload the payload, or {@code null}
	 * @param dueAt the due instant
	 * @return the generated id
	 */
	String scheduleAt(String topic, @Nullable Object payload, Instant dueAt);

	/**
	 * Schedules a job with full control over id and duplicate policy.
	 * @param job the job
	 * @return the job's id (generated when the job has none)
	 */
	String schedule(Job job);

	/**
	 * Schedules many jobs in pipelined round trips. Each job is applied atomically; if
	 * one fails (capacity, duplicate), the others still go through and the first failure
	 * is thrown after all were sent.
	 * @param jobs the jobs, of one topic or several
	 * @return the ids, in the order of {@code jobs}
	 */
	List<String> scheduleAll(Collection<Job> jobs);

	/**
	 * Cancels a job that is waiting (DELAYED, READY or DEAD).
	 * @param topic the job's topic
	 * @param id the job's id
	 * @return {@code false} if the job is unknown, already running or done
	 */
	boolean cancel(String topic, String id);

	/**
	 * Cancels the waiting (DELAYED or READY) jobs among {@code ids}: one script per
	 * bucket, all sent in one pipelined round. Running, dead and unknown jobs are left
	 * alone and not counted; a repeated id counts once. Each bucket's share is cancelled
	 * atomically; if one bucket's script fails, the others still run and the first
	 * failure is thrown after all answered.
	 * @param topic the jobs' topic
	 * @param ids the jobs' ids, at most 10,000 (an empty list cancels nothing)
	 * @return how many jobs were cancelled
	 */
	long cancelAll(String topic, Collection<String> ids);

	/**
	 * Moves a waiting job's due time to {@code delay} from now (Redis clock).
	 * @param topic the job's topic
	 * @param id the job's id
	 * @param delay the new delay, not negative
	 * @return {@code false} if the job is unknown, running or done
	 */
	boolean reschedule(String topic, String id, Duration delay);

	/**
	 * Moves a waiting job's due time to {@code dueAt}.
	 * @param topic the job's topic
	 * @param id the job's id
	 * @param dueAt the new due instant
	 * @return {@code false} if the job is unknown, running or done
	 */
	boolean reschedule(String topic, String id, Instant dueAt);

	/**
	 * Looks a job up; finished and cancelled jobs are not found.
	 * @param topic the job's topic
	 * @param id the job's id
	 * @return the job, or empty if it is not found
	 */
	Optional<JobInfo> find(String topic, String id);

	/**
	 * Declares a recurring job: each tick creates one occurrence, an ordinary job of its
	 * topic whose id is the recurring job's id and whose {@link Delivery#dueAt()} is the
	 * tick. Declaring it again with the same schedule changes nothing (so doing it at
	 * every startup is safe); with another schedule it replaces the schedule without
	 * running a tick twice. Applied at once, also inside a transaction.
	 * @param recurring the recurring job
	 * @return its id (generated when it has none)
	 * @since 0.1.0
	 */
	String scheduleRecurring(Recurring recurring);

	/**
	 * Removes a recurring job. An occurrence already created is an ordinary job and still
	 * runs; {@link #cancel(String, String)} cancels it while it waits.
	 * @param topic its topic
	 * @param id its id
	 * @return {@code false} if no recurring job has that id
	 * @since 0.1.0
	 */
	boolean cancelRecurring(String topic, String id);

	/**
	 * Takes one due job of {@code topic} without a listener, waiting up to
	 * {@code maxWait} for one: the caller is woken as soon as a job becomes due (the same
	 * wake-up listeners get, no busy polling). The job is leased to the caller like a
	 * listener's job (the topic's timeout) until {@link PolledJob#ack()} completes it or
	 * {@link PolledJob#fail(Throwable)} retries or buries it; not settled within its
	 * lease, it is delivered again. A paused topic hands out nothing. Polls of one topic
	 * in one engine take turns, oldest first.
	 * @param topic the topic
	 * @param maxWait how long to wait for a due job: zero to only look, at most one day
	 * @return the leased job, or empty if none was due within {@code maxWait}, or when
	 * the engine closed meanwhile, or the calling thread was interrupted (its interrupt
	 * flag is then set again)
	 * @throws IllegalArgumentException if the topic is blank or malformed, or
	 * {@code maxWait} is null, negative or longer than a day
	 * @throws IllegalStateException if the engine is closed
	 * @throws RedeqUnavailableException if Redis does not answer
	 * @since 0.1.0
	 */
	Optional<PolledJob> poll(String topic, Duration maxWait);

	/**
	 * The same operations without blocking the caller: each returns a
	 * {@link java.util.concurrent.CompletableFuture}. In Spring, the client bean's view
	 * is transaction-aware in the same way as the client.
	 * @return the asynchronous view of this client
	 */
	AsyncRedeqClient async();

}
