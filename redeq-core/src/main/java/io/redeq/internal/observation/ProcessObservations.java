package io.redeq.internal.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import io.redeq.DefaultRedeqProcessObservationConvention;
import io.redeq.Delivery;
import io.redeq.RedeqProcessContext;
import io.redeq.RedeqProcessObservationConvention;

/**
 * Starts the observation of one handler run, continuing the trace stored with the job.
 * {@link #OFF} (no registry: the default) returns {@link Observation#NOOP}.
 */
public final class ProcessObservations {

	/** Observation off. */
	public static final ProcessObservations OFF = new ProcessObservations(null, null);

	private final @Nullable ObservationRegistry registry;

	private final @Nullable RedeqProcessObservationConvention convention;

	public ProcessObservations(@Nullable ObservationRegistry registry,
			@Nullable RedeqProcessObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	/**
	 * Starts the observation of a handler run.
	 * @param delivery the job
	 * @param traceContext the trace context stored with it, or {@code null}
	 * @return the started observation, {@link Observation#NOOP} when off
	 */
	public Observation start(Delivery delivery, @Nullable String traceContext) {
		if (this.registry == null || this.registry.isNoop()) {
			return Observation.NOOP;
		}
		RedeqProcessContext context = new RedeqProcessContext(delivery, TraceContext.decode(traceContext));
		return Observation
			.createNotStarted(this.convention, DefaultRedeqProcessObservationConvention.INSTANCE, () -> context,
					this.registry)
			.start();
	}

}
