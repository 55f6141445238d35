package io.redeq;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import io.redeq.internal.Validate;
import io.redeq.internal.recurring.RecurringSchedule;

/**
 * A recurring job: every tick of a cron expression or a fixed period creates one
 * occurrence, an ordinary job of the topic run by its listener, whose
 * {@link Delivery#dueAt()} is the tick. Declare it with
 * {@link RedeqClient#scheduleRecurring(Recurring)}; declaring the same one again changes
 * nothing, so doing it at every startup is safe. See {@code docs/recurring.md}.
 *
 * <pre class="code">
 * client.scheduleRecurring(Recurring.builder("report.daily").id("daily-sales")
 *     .cron("0 0 9 * * MON-FRI").zone(ZoneId.of("Europe/Berlin"))
 *     .payload(new Report("sales"))
 *     .build());
 * </pre>
 *
 * @since 0.1.0
 */
public final class Recurring {

	/** Shortest period {@link Builder#every(Duration)} accepts. */
	public static final Duration MIN_PERIOD = Duration.ofSeconds(1);

	private final String topic;

	private final @Nullable String id;

	private final @Nullable String cron;

	private final @Nullable Duration every;

	private final ZoneId zone;

	private final @Nullable Object payload;

	private final Missed missed;

	private Recurring(Builder builder) {
		this.topic = builder.topic;
		this.id = builder.id;
		this.cron = builder.cron;
		this.every = builder.every;
		this.zone = builder.zone;
		this.payload = builder.payload;
		this.missed = builder.missed;
	}

	/**
	 * Starts a recurring job of the given topic.
	 * @param topic the topic whose listener runs each occurrence
	 * @return a builder; set {@code cron} or {@code every}
	 */
	public static Builder builder(String topic) {
		return new Builder(topic);
	}

	/**
	 * The topic of its occurrences.
	 * @return the topic
	 */
	public String topic() {
		return this.topic;
	}

	/**
	 * Its id, which each occurrence carries as job id; {@code null} to have one
	 * generated.
	 * @return the id, or {@code null}
	 */
	public @Nullable String id() {
		return this.id;
	}

	/**
	 * Its cron expression (Spring's syntax, six fields), or {@code null} when it runs
	 * {@link #every()} period.
	 * @return the cron expression, or {@code null}
	 */
	public @Nullable String cron() {
		return this.cron;
	}

	/**
	 * Its fixed period, or {@code null} when it follows a {@link #cron()} expression.
	 * @return the period, or {@code null}
	 */
	public @Nullable Duration every() {
		return this.every;
	}

	/**
	 * The time zone its cron expression is read in (UTC unless set).
	 * @return the zone
	 */
	public ZoneId zone() {
		return this.zone;
	}

	/**
	 * The payload every occurrence carries.
	 * @return the payload, or {@code null}
	 */
	public @Nullable Object payload() {
		return this.payload;
	}

	/**
	 * What happens to ticks that passed while no instance ran.
	 * @return the policy, {@link Missed#RUN_ONCE} unless set
	 */
	public Missed missed() {
		return this.missed;
	}

	/**
	 * What happens to ticks that passed while no instance ran (or before the previous
	 * occurrence finished).
	 */
	public enum Missed {

		/**
		 * All ticks that passed make one occurrence, run at once; its
		 * {@link Delivery#dueAt()} is the first of them.
		 */
		RUN_ONCE,

		/**
		 * Ticks found more than a minute late do not run; the next tick does.
		 */
		SKIP

	}

	/**
	 * Builds a {@link Recurring}; {@link #build()} checks every value.
	 */
	public static final class Builder {

		private final String topic;

		private @Nullable String id;

		private @Nullable String cron;

		private @Nullable Duration every;

		private ZoneId zone = ZoneOffset.UTC;

		private @Nullable Object payload;

		private Missed missed = Missed.RUN_ONCE;

		private Builder(String topic) {
			this.topic = topic;
		}

		/**
		 * Sets its id: declaring a recurring job with an id that exists replaces that
		 * one's schedule and payload.
		 * @param id the id, also the job id of each occurrence
		 * @return this builder
		 */
		public Builder id(String id) {
			this.id = id;
			return this;
		}

		/**
		 * Runs it at each tick of a cron expression in Spring's syntax
		 * ({@code second minute hour day-of-month month day-of-week}, or a macro such as
		 * {@code @daily}). Needs {@code spring-context} on the class path.
		 * @param cron the expression
		 * @return this builder
		 */
		public Builder cron(String cron) {
			this.cron = cron;
			return this;
		}

		/**
		 * Runs it every {@code period}, the first time one period after it is declared.
		 * @param period at least {@link Recurring#MIN_PERIOD}
		 * @return this builder
		 */
		public Builder every(Duration period) {
			this.every = period;
			return this;
		}

		/**
		 * Sets the time zone the cron expression is read in (default UTC, so every
		 * instance reads it alike whatever its own zone).
		 * @param zone the zone
		 * @return this builder
		 */
		public Builder zone(ZoneId zone) {
			this.zone = zone;
			return this;
		}

		/**
		 * Sets the payload each occurrence carries, written as JSON once, when declared.
		 * @param payload the payload, or {@code null}
		 * @return this builder
		 */
		public Builder payload(@Nullable Object payload) {
			this.payload = payload;
			return this;
		}

		/**
		 * Sets what happens to ticks that passed while no instance ran.
		 * @param missed the policy
		 * @return this builder
		 */
		public Builder missed(Missed missed) {
			this.missed = missed;
			return this;
		}

		/**
		 * Checks every value and builds the recurring job.
		 * @return the recurring job
		 * @throws IllegalArgumentException naming the value that is wrong
		 */
		public Recurring build() {
			Validate.topic(this.topic);
			if (this.id != null) {
				Validate.id(this.topic, this.id);
			}
			Objects.requireNonNull(this.zone, "zone must not be null");
			Objects.requireNonNull(this.missed, "missed must not be null");
			if ((this.cron == null) == (this.every == null)) {
				throw new IllegalArgumentException(
						"recurring job in topic '" + this.topic + "' needs exactly one of cron or every, but has "
								+ ((this.cron == null) ? "neither" : "both"));
			}
			Recurring recurring = new Recurring(this);
			// Validates the cron expression or the period.
			RecurringSchedule.of(recurring);
			return recurring;
		}

	}

}
