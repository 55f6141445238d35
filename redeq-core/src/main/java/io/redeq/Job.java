package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import io.redeq.internal.Validate;

/**
 * A job to schedule: a topic, an optional id (a business key such as an order id;
 * generated when absent), a payload and when it is due. Build one with
 * {@link #builder(String)}.
 *
 * @since 0.1.0
 */
public final class Job {

	private final String topic;

	private final @Nullable String id;

	private final @Nullable Object payload;

	private final @Nullable Duration delay;

	private final @Nullable Instant dueAt;

	private final Duplicate onDuplicate;

	private final @Nullable Duration timeout;

	private final @Nullable Integer maxAttempts;

	private final int priority;

	private Job(Builder builder) {
		this.topic = builder.topic;
		this.id = builder.id;
		this.payload = builder.payload;
		this.delay = builder.delay;
		this.dueAt = builder.dueAt;
		this.onDuplicate = builder.onDuplicate;
		this.timeout = builder.timeout;
		this.maxAttempts = builder.maxAttempts;
		this.priority = builder.priority;
	}

	/**
	 * Starts a job of the given topic; validated when the job is scheduled.
	 * @param topic the topic whose subscribers run the job
	 * @return a builder of a job due at once
	 */
	public static Builder builder(String topic) {
		return new Builder(topic);
	}

	/**
	 * The topic the job is scheduled on.
	 * @return the topic
	 */
	public String topic() {
		return this.topic;
	}

	/**
	 * The id asked for, or {@code null} to have redeq generate one.
	 * @return the id, or {@code null}
	 */
	public @Nullable String id() {
		return this.id;
	}

	/**
	 * The payload, serialized by the engine's codec when the job is scheduled.
	 * @return the payload, or {@code null}
	 */
	public @Nullable Object payload() {
		return this.payload;
	}

	/**
	 * The delay from the moment Redis accepts the job, or {@code null} when
	 * {@link #dueAt()} is set.
	 * @return the delay, or {@code null}
	 */
	public @Nullable Duration delay() {
		return this.delay;
	}

	/**
	 * The instant the job is due, or {@code null} when {@link #delay()} is set.
	 * @return the due instant, or {@code null}
	 */
	public @Nullable Instant dueAt() {
		return this.dueAt;
	}

	/**
	 * What happens when a job with the same id is already pending.
	 * @return the duplicate policy
	 */
	public Duplicate onDuplicate() {
		return this.onDuplicate;
	}

	/**
	 * This job's handler timeout, or {@code null} for the subscription's.
	 * @return the timeout, or {@code null}
	 */
	public @Nullable Duration timeout() {
		return this.timeout;
	}

	/**
	 * This job's deliveries before it is DEAD, or {@code null} for the subscription's.
	 * @return the attempts, or {@code null}
	 */
	public @Nullable Integer maxAttempts() {
		return this.maxAttempts;
	}

	/**
	 * This job's priority, 0 (the default) to 9.
	 * @return the priority
	 */
	public int priority() {
		return this.priority;
	}

	@Override
	public String toString() {
		return "Job[topic=" + this.topic + ", id=" + this.id + ", "
				+ ((this.dueAt != null) ? "dueAt=" + this.dueAt : "delay=" + this.delay) + "]";
	}

	/**
	 * Builder of {@link Job}. Without {@code delay} or {@code dueAt} a job is due at
	 * once.
	 */
	public static final class Builder {

		private final String topic;

		private @Nullable String id;

		private @Nullable Object payload;

		private @Nullable Duration delay;

		private @Nullable Instant dueAt;

		private Duplicate onDuplicate = Duplicate.REPLACE;

		private @Nullable Duration timeout;

		private @Nullable Integer maxAttempts;

		private int priority;

		private Builder(String topic) {
			this.topic = topic;
		}

		/**
		 * The job's id, unique within its topic; a business key makes cancel and find
		 * easy.
		 * @param id the id
		 * @return this builder
		 */
		public Builder id(String id) {
			this.id = id;
			return this;
		}

		/**
		 * The payload, written as JSON with the engine's Jackson mapper.
		 * @param payload the payload, or {@code null}
		 * @return this builder
		 */
		public Builder payload(@Nullable Object payload) {
			this.payload = payload;
			return this;
		}

		/**
		 * Due this long after Redis accepts the job (on the Redis server's clock).
		 * @param delay the delay, not negative
		 * @return this builder
		 */
		public Builder delay(Duration delay) {
			this.delay = Validate.delay(this.topic, delay);
			this.dueAt = null;
			return this;
		}

		/**
		 * Due at this instant.
		 * @param dueAt the due instant
		 * @return this builder
		 */
		public Builder dueAt(Instant dueAt) {
			this.dueAt = Validate.dueAt(this.topic, dueAt);
			this.delay = null;
			return this;
		}

		/**
		 * What to do when the id is already taken; {@link Duplicate#REPLACE} by default.
		 * @param onDuplicate the duplicate policy
		 * @return this builder
		 */
		public Builder onDuplicate(Duplicate onDuplicate) {
			this.onDuplicate = Objects.requireNonNull(onDuplicate, "onDuplicate must not be null");
			return this;
		}

		/**
		 * How long this job's handler may run before it is interrupted and the attempt
		 * fails; wins over the subscription's timeout. The lease (how soon a crashed
		 * instance's job comes back) stays the subscription's.
		 * @param timeout the timeout, at least 1 ms
		 * @return this builder
		 */
		public Builder timeout(Duration timeout) {
			this.timeout = Validate.atLeast("timeout", timeout, Duration.ofMillis(1));
			return this;
		}

		/**
		 * Deliveries of this job before it is DEAD; wins over the subscription's.
		 * @param maxAttempts the number of deliveries, at least 1
		 * @return this builder
		 */
		public Builder maxAttempts(int maxAttempts) {
			this.maxAttempts = Validate.atLeast("maxAttempts", maxAttempts, 1);
			return this;
		}

		/**
		 * Among READY jobs of the topic, higher priority is claimed first, FIFO within
		 * one priority; each level counts as one minute of waiting, so a job of lower
		 * priority is never held back by more than nine minutes (see
		 * docs/topic-controls.md).
		 * @param priority 0 (the default) to 9
		 * @return this builder
		 */
		public Builder priority(int priority) {
			this.priority = Validate.between("priority", priority, 0, 9);
			return this;
		}

		/**
		 * Builds the job.
		 * @return the job
		 */
		public Job build() {
			return new Job(this);
		}

	}

}
