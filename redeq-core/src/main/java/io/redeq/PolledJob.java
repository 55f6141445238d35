package io.redeq;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A due job taken with {@link RedeqClient#poll(String, java.time.Duration)}, leased to
 * the caller until it calls {@link #ack()} or {@link #fail(Throwable)}.
 *
 * <p>
 * The lease is the topic's timeout (or the job's own, when it was scheduled with one) and
 * is not renewed: a job neither acknowledged nor failed within it goes back to READY and
 * is delivered again, to this or another instance, with its next attempt; once its
 * attempts are used up it is DEAD instead. Its attempt, retry and dead-letter rules are
 * those of a listener's job of the topic.
 *
 * <p>
 * Settling is fenced by the delivery: once the lease expired, {@link #ack()} and
 * {@link #fail(Throwable)} change nothing and throw {@link LeaseExpiredException}, so a
 * late acknowledgement never completes the job's next delivery. Each job is settled once;
 * a second {@code ack()} or {@code fail(...)} throws {@link IllegalStateException}. When
 * Redis does not answer, both throw {@link RedeqUnavailableException} and the job stays
 * leased: call the same method again. Not thread-safe beyond that: settle a job from one
 * thread.
 *
 * @since 0.1.0
 */
public interface PolledJob {

	/**
	 * The job's id.
	 * @return the id
	 */
	String id();

	/**
	 * The job's topic.
	 * @return the topic
	 */
	String topic();

	/**
	 * Which delivery this is: 1 on the first, 2 after one failure or expired lease, and
	 * so on.
	 * @return the attempt
	 */
	int attempt();

	/**
	 * When the job was due, on the Redis server's clock.
	 * @return the due time
	 */
	Instant dueAt();

	/**
	 * When the job was first scheduled, on the Redis server's clock.
	 * @return the creation time
	 */
	Instant createdAt();

	/**
	 * Reads the payload, with the engine's Jackson mapper, into {@code type}. Reading can
	 * be repeated, also after the job was settled.
	 * @param <T> the payload type
	 * @param type the type to read into
	 * @return the payload, {@code null} if the job was scheduled without one
	 * @throws IllegalArgumentException if the payload cannot be read as {@code type};
	 * {@code fail(new NotRetryableException(...))} then makes the job DEAD at once
	 */
	<T> @Nullable T payload(Class<T> type);

	/**
	 * Completes the job: it is removed and counts as completed, as when a listener
	 * returns normally.
	 * @throws LeaseExpiredException if the lease expired first; the job was or will be
	 * delivered again and this call changed nothing
	 * @throws IllegalStateException if the job was already acknowledged or failed
	 * @throws RedeqUnavailableException if Redis did not answer; the job stays leased and
	 * {@code ack()} may be called again
	 */
	void ack();

	/**
	 * Fails this attempt, as when a listener throws {@code error}: the job is retried
	 * after the topic's backoff (or after the delay of a {@link RetryAfterException}
	 * among its causes), or is DEAD when its attempts are used up or a
	 * {@link NotRetryableException} (or one of the topic's not-retryable exception
	 * classes) is among its causes.
	 * @param error why the attempt failed; its class and message are the job's last error
	 * @throws LeaseExpiredException if the lease expired first; the job was or will be
	 * delivered again and this call changed nothing
	 * @throws IllegalStateException if the job was already acknowledged or failed
	 * @throws RedeqUnavailableException if Redis did not answer; the job stays leased and
	 * {@code fail(...)} may be called again
	 */
	void fail(Throwable error);

}
