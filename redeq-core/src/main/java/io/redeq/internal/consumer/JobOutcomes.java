package io.redeq.internal.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.Delivery;
import io.redeq.JobLifecycleListener;
import io.redeq.NotRetryableException;
import io.redeq.RetryAfterException;
import io.redeq.internal.JobEvents;
import io.redeq.internal.WakeUps;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.ScheduleOutcome;

/**
 * Stores what became of a delivered job (completed, retried, dead), then tells metrics,
 * the lifecycle listeners and the log. One line per failure; nothing per success at INFO.
 * Also tells the listeners when an attempt starts.
 */
final class JobOutcomes {

	private static final Logger logger = LoggerFactory.getLogger(JobOutcomes.class);

	private static final int MAX_ERROR_LENGTH = 2000;

	private final FailedJobMoves moves;

	private final ConsumerSettings settings;

	private final List<JobLifecycleListener> listeners;

	private final JobEvents events;

	private final WakeUps wakeUps;

	/** The batched completions of a subscription; {@code null} for polled jobs. */
	private final @Nullable Acknowledgements acknowledgements;

	JobOutcomes(RedisJobStore store, ConsumerSettings settings, List<JobLifecycleListener> listeners, JobEvents events,
			WakeUps wakeUps, @Nullable Acknowledgements acknowledgements) {
		this(FailedJobMoves.of(store), settings, listeners, events, wakeUps, acknowledgements);
	}

	/** Failed jobs moved through {@code moves}: a test's fake, or Redis. */
	JobOutcomes(FailedJobMoves moves, ConsumerSettings settings, List<JobLifecycleListener> listeners, JobEvents events,
			WakeUps wakeUps, @Nullable Acknowledgements acknowledgements) {
		this.moves = moves;
		this.settings = settings;
		this.listeners = listeners;
		this.events = events;
		this.wakeUps = wakeUps;
		this.acknowledgements = acknowledgements;
	}

	/**
	 * Tells the listeners that an attempt starts, on the worker thread before the
	 * handler. Nothing is stored: Redis already knows from the claim (metrics count it
	 * there).
	 */
	void started(ClaimedJob job, Delivery delivery) {
		for (JobLifecycleListener listener : this.listeners) {
			if (listener instanceof VersionedLifecycleListener versioned) {
				safely(() -> versioned.onStart(delivery, job.settings().version()));
			}
			else {
				safely(() -> listener.onStart(delivery));
			}
		}
	}

	/**
	 * Queues a job's completion in the batched acknowledgements, to be sent by
	 * {@link #sendCompletions()}; metrics and listeners are told once Redis has answered
	 * for it, possibly on another worker's thread.
	 */
	void completed(ClaimedJob job, Delivery delivery, Duration took) {
		Acknowledgements acknowledgements = Objects.requireNonNull(this.acknowledgements,
				"completions of polled jobs are stored by their ack");
		acknowledgements.add(job, (answer) -> {
			switch (answer) {
				case CLAIM_LOST -> {
					logger.warn(
							"Job {} finished after its claim was lost (lease expired and the job was reclaimed); "
									+ "it may run again elsewhere, which is why handlers should be idempotent",
							describe(job));
					return;
				}
				case GONE_AFTER_UNANSWERED_ATTEMPT ->
					logger.debug("Job {} was gone when its completion was retried: the attempt whose reply was lost "
							+ "most likely completed it", describe(job));
				case COMPLETED -> {
				}
			}
			succeeded(job, delivery, took);
		});
	}

	/** Tells metrics and the listeners that Redis completed the job. */
	void succeeded(ClaimedJob job, Delivery delivery, Duration took) {
		this.events.completed(job.topic(), took);
		for (JobLifecycleListener listener : this.listeners) {
			if (listener instanceof VersionedLifecycleListener versioned) {
				safely(() -> versioned.onSuccess(delivery, took, job.settings().version()));
			}
			else {
				safely(() -> listener.onSuccess(delivery, took));
			}
		}
	}

	/** Sends the completions queued by {@link #completed}; never throws for Redis. */
	void sendCompletions() {
		if (this.acknowledgements != null) {
			this.acknowledgements.send();
		}
	}

	/**
	 * Retries a failed job after the backoff, or after the delay a
	 * {@link RetryAfterException} asks for; buries it when its attempts are used up or
	 * the handler said retrying cannot help ({@link NotRetryableException}).
	 * @return {@code false} if the claim was lost, so nothing was stored
	 */
	boolean failed(ClaimedJob job, Delivery delivery, Throwable error, Duration took) {
		String reason = reason(error);
		int maxAttempts = job.settings().maxAttempts(this.settings.maxAttempts());
		if (causeOfType(error, NotRetryableException.class) != null) {
			return dead(job, delivery,
					"attempt " + job.attempt() + " of " + maxAttempts + " failed and is not retryable: " + reason);
		}
		if (job.attempt() >= maxAttempts) {
			return dead(job, delivery, "attempt " + job.attempt() + " of " + maxAttempts + " failed: " + reason);
		}
		RetryAfterException retryAfter = causeOfType(error, RetryAfterException.class);
		Duration backoff = (retryAfter != null) ? retryAfter.delay()
				: this.settings.backoff().delayAfter(job.attempt());
		Optional<ScheduleOutcome> retry = this.moves.retry(job, backoff.toMillis(), reason);
		if (retry.isEmpty()) {
			logger.warn("Job {} failed after its claim was lost; another instance owns it now", describe(job));
			return false;
		}
		long dueAt = Long.parseLong(retry.get().value());
		if (retry.get().earliest()) {
			this.wakeUps.earlierJob(job.bucket(), dueAt);
		}
		Instant next = Instant.ofEpochMilli(dueAt);
		logger.warn("Job {} failed on attempt {} of {}: {}; next attempt at {}", describe(job), job.attempt(),
				maxAttempts, reason, next);
		this.events.retried(job.topic(), took);
		for (JobLifecycleListener listener : this.listeners) {
			if (listener instanceof VersionedLifecycleListener versioned) {
				safely(() -> versioned.onRetry(delivery, error, next, job.settings().version()));
			}
			else {
				safely(() -> listener.onRetry(delivery, error, next));
			}
		}
		return true;
	}

	/**
	 * Moves a job to DEAD.
	 * @return {@code false} if the claim was lost, so nothing was stored
	 */
	boolean dead(ClaimedJob job, Delivery delivery, String reason) {
		String bounded = (reason.length() > MAX_ERROR_LENGTH) ? reason.substring(0, MAX_ERROR_LENGTH) + "…" : reason;
		long diedAt = this.moves.bury(job, bounded);
		if (diedAt == 0) {
			logger.warn("Job {} could not be moved to DEAD: its claim was lost", describe(job));
			return false;
		}
		logger.warn("Job {} is DEAD: {}. Inspect it with RedeqAdmin.deadJobs(\"{}\", 0, 50), requeue with requeueDead",
				describe(job), bounded, job.topic());
		this.events.dead(job.topic());
		for (JobLifecycleListener listener : this.listeners) {
			if (listener instanceof VersionedLifecycleListener versioned) {
				safely(() -> versioned.onDead(delivery, bounded, job.settings().version()));
			}
			else {
				safely(() -> listener.onDead(delivery, bounded));
			}
		}
		return true;
	}

	/**
	 * The error itself or its first cause of that type; a bounded walk, so a cause cycle
	 * cannot hang a worker.
	 */
	static <T extends Throwable> @Nullable T causeOfType(Throwable error, Class<T> type) {
		Throwable current = error;
		for (int depth = 0; current != null && depth < 32; depth++) {
			if (type.isInstance(current)) {
				return type.cast(current);
			}
			current = current.getCause();
		}
		return null;
	}

	static String reason(Throwable error) {
		String message = error.getMessage();
		return error.getClass().getName() + ((message != null) ? ": " + message : "");
	}

	static String describe(ClaimedJob job) {
		return "'" + job.id() + "' of topic '" + job.topic() + "'";
	}

	/** The first few ids, for a log line that stays one line. */
	static String ids(List<ClaimedJob> jobs) {
		int shown = Math.min(jobs.size(), 10);
		StringBuilder ids = new StringBuilder();
		for (int i = 0; i < shown; i++) {
			ids.append((i > 0) ? ", " : "").append(jobs.get(i).id());
		}
		return ids + ((jobs.size() > shown) ? ", …" : "");
	}

	private static void safely(Runnable call) {
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			logger.warn("A JobLifecycleListener threw; ignored", ex);
		}
	}

}
