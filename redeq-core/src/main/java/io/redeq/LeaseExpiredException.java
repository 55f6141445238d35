package io.redeq;

/**
 * Thrown by {@link PolledJob#ack()} and {@link PolledJob#fail(Throwable)} when the job's
 * lease expired before it was settled: the job went back to READY (or to DEAD, with its
 * attempts used up) and its next delivery is not this caller's to settle, so the call
 * changed nothing. Work already done for the job may be done again by that next delivery,
 * which is why a job's work should be idempotent.
 *
 * @since 0.1.0
 */
public class LeaseExpiredException extends RedeqException {

	private final String topic;

	private final String id;

	private final int attempt;

	/**
	 * Creates the exception.
	 * @param topic the job's topic
	 * @param id the job's id
	 * @param attempt the attempt whose lease expired
	 * @param operation what could not be done, such as {@code "ack"}
	 */
	public LeaseExpiredException(String topic, String id, int attempt, String operation) {
		super("Cannot " + operation + " job '" + id + "' of topic '" + topic + "' (attempt " + attempt
				+ "): its lease expired before, so the job was handed back for another delivery and this call "
				+ "changed nothing. Settle polled jobs within the topic's timeout, or raise it");
		this.topic = topic;
		this.id = id;
		this.attempt = attempt;
	}

	/**
	 * The job's topic.
	 * @return the topic
	 */
	public String topic() {
		return this.topic;
	}

	/**
	 * The job's id.
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

	/**
	 * The attempt whose lease expired.
	 * @return the attempt
	 */
	public int attempt() {
		return this.attempt;
	}

}
