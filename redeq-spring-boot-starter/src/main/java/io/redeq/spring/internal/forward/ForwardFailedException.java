package io.redeq.spring.internal.forward;

/**
 * An attempt to forward a job that the broker did not confirm: a nack, no confirm in
 * time, or a returned (unroutable) message. It fails the attempt like a listener's
 * exception: the job is retried with the topic's backoff, and DEAD after its last attempt
 * with this message as the reason.
 */
final class ForwardFailedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	ForwardFailedException(String message) {
		super(message);
	}

	ForwardFailedException(String message, Throwable cause) {
		super(message, cause);
	}

}
