package io.redeq;

/**
 * Thrown when a job id is already taken in its topic and the job asked for
 * {@link Duplicate#REJECT}, or when an existing job cannot be replaced because a handler
 * is running it.
 *
 * @since 0.1.0
 */
public class DuplicateJobException extends RedeqException {

	private final String topic;

	private final String id;

	public DuplicateJobException(String topic, String id, String message) {
		super(message);
		this.topic = topic;
		this.id = id;
	}

	public String topic() {
		return this.topic;
	}

	public String id() {
		return this.id;
	}

}
