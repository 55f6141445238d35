package io.redeq;

import java.util.Map;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;

/**
 * The Micrometer Observation context of one handler run (consumer kind). Its carrier
 * holds the trace context stored when the job was scheduled, so a tracer's propagating
 * handler makes the schedule's span the handler span's parent.
 *
 * @since 0.1.0
 */
public class RedeqProcessContext extends ReceiverContext<Map<String, String>> {

	private final Delivery delivery;

	/**
	 * Creates the context of one handler run.
	 * @param delivery the job being handled
	 * @param propagated the propagation headers stored with the job, empty if none
	 */
	public RedeqProcessContext(Delivery delivery, Map<String, String> propagated) {
		super((carrier, key) -> carrier.get(key), Kind.CONSUMER);
		setCarrier(propagated);
		setRemoteServiceName("redeq");
		this.delivery = delivery;
	}

	/**
	 * The job being handled: topic, id, attempt, due and created times.
	 * @return the delivery
	 */
	public Delivery getDelivery() {
		return this.delivery;
	}

}
