package io.redeq.internal.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import io.redeq.DefaultRedeqScheduleObservationConvention;
import io.redeq.RedeqScheduleContext;
import io.redeq.RedeqScheduleObservationConvention;

/**
 * Starts the observation of scheduling one job and hands back the trace context to store
 * with it. {@link #OFF} (no registry: the default) starts nothing and stores nothing.
 */
public final class ScheduleObservations {

	/** Observation off: no observation, no trace context stored. */
	public static final ScheduleObservations OFF = new ScheduleObservations(null, null);

	private static final Started NOT_OBSERVED = new Started(Observation.NOOP, null);

	private final @Nullable ObservationRegistry registry;

	private final @Nullable RedeqScheduleObservationConvention convention;

	public ScheduleObservations(@Nullable ObservationRegistry registry,
			@Nullable RedeqScheduleObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	public boolean enabled() {
		return this.registry != null;
	}

	/**
	 * Starts the observation of scheduling a job; its parent is the caller's current
	 * observation (an HTTP request's, say).
	 * @param topic the job's topic
	 * @param id the job's id
	 * @return the started observation and the trace context a tracer propagated into it
	 */
	public Started start(String topic, String id) {
		if (this.registry == null || this.registry.isNoop()) {
			return NOT_OBSERVED;
		}
		RedeqScheduleContext context = new RedeqScheduleContext(topic, id);
		Observation observation = Observation
			.createNotStarted(this.convention, DefaultRedeqScheduleObservationConvention.INSTANCE, () -> context,
					this.registry)
			.start();
		return new Started(observation, TraceContext.encode(context.getCarrier()));
	}

	/**
	 * A started schedule observation.
	 *
	 * @param observation the observation
	 * @param traceContext the trace context to store with the job, {@code null} if no
	 * tracer wrote one
	 */
	public record Started(Observation observation, @Nullable String traceContext) {

		/**
		 * Ends the observation once Redis answered.
		 * @param error the failure, or {@code null}
		 */
		public void stop(@Nullable Throwable error) {
			if (error != null) {
				this.observation.error(error);
			}
			this.observation.stop();
		}

	}

}
