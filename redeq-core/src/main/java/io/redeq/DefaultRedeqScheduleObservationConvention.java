package io.redeq;

import io.micrometer.common.KeyValues;

/**
 * redeq's default naming of a schedule observation: name {@code redeq.schedule},
 * contextual (span) name {@code "<topic> schedule"}, low-cardinality tag {@code topic},
 * high-cardinality tag {@code job.id} (spans only, never metrics).
 *
 * @since 0.1.0
 */
public class DefaultRedeqScheduleObservationConvention implements RedeqScheduleObservationConvention {

	/** The shared instance. */
	public static final DefaultRedeqScheduleObservationConvention INSTANCE = new DefaultRedeqScheduleObservationConvention();

	@Override
	public String getContextualName(RedeqScheduleContext context) {
		return context.getTopic() + " schedule";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RedeqScheduleContext context) {
		return KeyValues.of("topic", context.getTopic());
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(RedeqScheduleContext context) {
		return KeyValues.of("job.id", context.getJobId());
	}

}
