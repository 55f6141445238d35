package io.redeq.spring.internal.listener;

/**
 * Thrown at startup when a {@link io.redeq.spring.RedeqListener @RedeqListener} method
 * cannot be used; the message names the bean, the method and what is wrong.
 *
 * @since 0.1.0
 */
public class InvalidRedeqListenerException extends IllegalStateException {

	private final String listener;

	public InvalidRedeqListenerException(String listener, String problem) {
		super("@RedeqListener " + listener + " " + problem);
		this.listener = listener;
	}

	/** The offending bean and method, as in {@link ListenerMethod#description()}. */
	public String listener() {
		return this.listener;
	}

}
