package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * The operations of {@link RedeqClient}, each returning at once with a
 * {@link CompletableFuture}: one thread can keep many schedules in flight on redeq's one
 * multiplexed connection. Get it with {@link RedeqClient#async()}.
 *
 * <p>
 * Bad input (a blank or malformed topic or id, a negative delay, a payload that cannot be
 * written as JSON or is too large) throws at the call, as the synchronous client does,
 * and nothing is sent: it is a programming error, not an outcome. Everything Redis
 * decides completes the future exceptionally with the exception the synchronous client
 * throws: {@link DuplicateJobException}, {@link CapacityExceededException},
 * {@link RedeqUnavailableException} (no answer within the command timeout), and so on.
 * Every future completes within the command timeout (plus the replica wait when
 * {@code redeq.durability.wait-replicas} is set).
 *
 * <p>
 * Futures complete on Lettuce's I/O threads: callbacks attached with
 * {@code thenApply}/{@code whenComplete} run there and must not block (never call the
 * synchronous client or {@code join()} inside one); hand slow work to your own executor
 * with the {@code ...Async(fn, executor)} variants.
 *
 * @since 0.1.0
 */
public interface AsyncRedeqClient {

	/**
	 * Schedules a job with a generated id, due {@code delay} after Redis accepts it.
	 * @param topic the topic whose subscribers run the job
	 * @param payload the payload, or {@code null}
	 * @param delay the delay, not negative
	 * @return the generated id, once Redis stored the job
	 */
	CompletableFuture<String> schedule(String topic, @Nullable Object payload, Duration delay);

	/**
	 * Schedules a job with a generated id, due at {@code dueAt}.
	 * @param topic the topic whose subscribers run the job
	 * @param payload the payload, or {@code null}
	 * @param dueAt the due instant
	 * @return the generated id, once Redis stored the job
	 */
	CompletableFuture<String> scheduleAt(String topic, @Nullable Object payload, Instant dueAt);

	/**
	 * Schedules a job with full control over id and duplicate policy.
	 * @param job the job
	 * @return the job's id (generated when the job has none), once Redis stored it
	 */
	CompletableFuture<String> schedule(Job job);

	/**
	 * Schedules many jobs in pipelined round trips. Each job is applied atomically; if
	 * one fails, the others still go through and the future completes exceptionally with
	 * the first failure once all were answered.
	 * @param jobs the jobs, of one topic or several
	 * @return the ids, in the order of {@code jobs}
	 */
	CompletableFuture<List<String>> scheduleAll(Collection<Job> jobs);

	/**
	 * Cancels a job that is waiting (DELAYED, READY or DEAD).
	 * @param topic the job's topic
	 * @param id the job's id
	 * @return {@code false} if the job is unknown, already running or done
	 */
	CompletableFuture<Boolean> cancel(String topic, String id);

	/**
	 * Moves a waiting job's due time to {@code delay} from now (Redis clock).
	 * @param topic the job's topic
	 * @param id the job's id
	 * @param delay the new delay, not negative
	 * @return {@code false} if the job is unknown, running or done
	 */
	CompletableFuture<Boolean> reschedule(String topic, String id, Duration delay);

	/**
	 * Moves a waiting job's due time to {@code dueAt}.
	 * @param topic the job's topic
	 * @param id the job's id
	 * @param dueAt the new due instant
	 * @return {@code false} if the job is unknown, running or done
	 */
	CompletableFuture<Boolean> reschedule(String topic, String id, Instant dueAt);

	/**
	 * Looks a job up; finished and cancelled jobs are not found.
	 * @param topic the job's topic
	 * @param id the job's id
	 * @return the job, or empty if it is not found
	 */
	CompletableFuture<Optional<JobInfo>> find(String topic, String id);

}
