package io.redeq;

import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;

/**
 * The Micrometer Observation context of scheduling one job (producer kind). A tracer's
 * propagating handler writes the trace context into its carrier, and redeq stores the W3C
 * {@code traceparent} and {@code tracestate} from there with the job.
 *
 * @since 0.1.0
 */
public class RedeqScheduleContext extends SenderContext<Map<String, String>> {

	private final String topic;

	private final String jobId;

	/**
	 * Creates the context of scheduling one job.
	 * @param topic the job's topic
	 * @param jobId the job's id
	 */
	public RedeqScheduleContext(String topic, String jobId) {
		super((carrier, key, value) -> {
			if (carrier != null) {
				carrier.put(key, value);
			}
		}, Kind.PRODUCER);
		setCarrier(new LinkedHashMap<>(4));
		setRemoteServiceName("redeq");
		this.topic = topic;
		this.jobId = jobId;
	}

	/**
	 * The topic of the job being scheduled.
	 * @return the topic
	 */
	public String getTopic() {
		return this.topic;
	}

	/**
	 * The id of the job being scheduled (generated, or the one the job asked for).
	 * @return the id
	 */
	public String getJobId() {
		return this.jobId;
	}

}
