package io.redeq.test;

/**
 * Thrown when a test needs a message broker whose programs are not installed. The message
 * names the package and the command that installs it.
 */
public class BrokerNotAvailableException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	public BrokerNotAvailableException(String message) {
		super(message);
	}

}
