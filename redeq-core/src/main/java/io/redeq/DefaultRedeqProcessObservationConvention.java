package io.redeq;

import io.micrometer.common.KeyValues;

/**
 * redeq's default naming of a handler observation: name {@code redeq.process}, contextual
 * (span) name {@code "<topic> process"}, low-cardinality tag {@code topic},
 * high-cardinality tags {@code job.id} and {@code job.attempt} (spans only, never
 * metrics).
 *
 * @since 0.1.0
 */
public class DefaultRedeqProcessObservationConvention implements RedeqProcessObservationConvention {

	/** The shared instance. */
	public static final DefaultRedeqProcessObservationConvention INSTANCE = new DefaultRedeqProcessObservationConvention();

	@Override
	public String getContextualName(RedeqProcessContext context) {
		return context.getDelivery().topic() + " process";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RedeqProcessContext context) {
		return KeyValues.of("topic", context.getDelivery().topic());
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(RedeqProcessContext context) {
		Delivery delivery = context.getDelivery();
		return KeyValues.of("job.id", delivery.id(), "job.attempt", Integer.toString(delivery.attempt()));
	}

}
