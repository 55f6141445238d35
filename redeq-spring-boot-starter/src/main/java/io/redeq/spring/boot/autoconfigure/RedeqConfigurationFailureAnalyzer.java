package io.redeq.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Reports an invalid {@code redeq.*} value: the core and the starter reject them with an
 * {@link IllegalArgumentException} whose message starts with the key and names the value
 * and what is allowed, which is exactly the description a user needs.
 */
class RedeqConfigurationFailureAnalyzer implements FailureAnalyzer {

	@Override
	public @Nullable FailureAnalysis analyze(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof IllegalArgumentException && cause.getMessage() != null
					&& cause.getMessage().startsWith("redeq.")) {
				String message = cause.getMessage();
				String key = message.split("[\\s:(]", 2)[0];
				return new FailureAnalysis("Invalid redeq configuration: " + message,
						"Update " + key + " in your application's configuration (application.yml, "
								+ "application.properties or the environment) to an allowed value.",
						cause);
			}
		}
		return null;
	}

}
