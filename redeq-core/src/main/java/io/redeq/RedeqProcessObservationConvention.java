package io.redeq;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of a handler run. Implement it (or extend
 * {@link DefaultRedeqProcessObservationConvention}) and give it to the engine's builder,
 * or declare it as a bean in Spring Boot, to change what redeq reports.
 *
 * @since 0.1.0
 */
public interface RedeqProcessObservationConvention extends ObservationConvention<RedeqProcessContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RedeqProcessContext;
	}

	@Override
	default String getName() {
		return "redeq.process";
	}

}
