package io.redeq;

/**
 * Thrown when a job id is already taken in its topic and the job asked for
 * {@link Duplicate#REJECT}, or when an existing job cannot be replaced because a handler
 * is running it.
 *
 * @since 0.1.0
 */
public class DuplicateJobException extends RedeqException {

	/** Topic of the job that already exists. */
	private final String topic;

	/** Id of the job that already exists. */
	private final String id;

	/**
	 * Creates the exception.
	 * @param topic the topic of the existing job
	 * @param id the id of the existing job
	 * @param message the message
	 */
	public DuplicateJobException(String topic, String id, String message) {
		super(message);
		this.topic = topic;
		this.id = id;
	}

	/**
	 * The topic of the job that already exists.
	 * @return the topic
	 */
	public String topic() {
		return this.topic;
	}

	/**
	 * The id of the job that already exists.
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

}
