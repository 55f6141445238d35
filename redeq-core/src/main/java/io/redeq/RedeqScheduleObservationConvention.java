package io.redeq;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of scheduling a job. Implement it (or extend
 * {@link DefaultRedeqScheduleObservationConvention}) and give it to the engine's builder,
 * or declare it as a bean in Spring Boot, to change what redeq reports.
 *
 * @since 0.1.0
 */
public interface RedeqScheduleObservationConvention extends ObservationConvention<RedeqScheduleContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RedeqScheduleContext;
	}

	@Override
	default String getName() {
		return "redeq.schedule";
	}

}
