package io.redeq.spring.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.redeq.spring.internal.listener.InvalidRedeqListenerException;

/**
 * Reports a {@code @RedeqListener} method that cannot be used.
 */
class InvalidRedeqListenerFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRedeqListenerException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidRedeqListenerException cause) {
		return new FailureAnalysis(cause.getMessage() + ".",
				"Fix " + cause.listener() + ": a @RedeqListener method is an instance method that is not private, "
						+ "takes one payload parameter and optionally an io.redeq.Delivery, and is the only "
						+ "listener of its topic, a topic not forwarded to RabbitMQ. Or set "
						+ "redeq.consumer.enabled=false if this application only schedules jobs.",
				cause);
	}

}
