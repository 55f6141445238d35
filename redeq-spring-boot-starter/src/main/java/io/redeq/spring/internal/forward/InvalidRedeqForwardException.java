package io.redeq.spring.internal.forward;

/**
 * Thrown at startup when a topic is configured to be forwarded to RabbitMQ but cannot be:
 * the message names the topic and what is missing, {@link #action()} what to do.
 *
 * @since 0.1.0
 */
public class InvalidRedeqForwardException extends IllegalStateException {

	private final String action;

	public InvalidRedeqForwardException(String problem, String action) {
		super(problem);
		this.action = action;
	}

	/**
	 * What fixes the configuration.
	 * @return the advice, one or more sentences
	 */
	public String action() {
		return this.action;
	}

}
