package io.redeq.spring.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.redeq.spring.internal.forward.InvalidRedeqForwardException;

/**
 * Reports a topic forwarded to RabbitMQ that cannot be.
 */
class InvalidRedeqForwardFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRedeqForwardException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidRedeqForwardException cause) {
		return new FailureAnalysis(cause.getMessage() + ".", cause.action() + ".", cause);
	}

}
