package io.redeq.spring.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a missing, ambiguous or non-Lettuce Redis connection factory.
 */
class RedeqConnectionFactoryFailureAnalyzer extends AbstractFailureAnalyzer<RedeqConnectionFactoryException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, RedeqConnectionFactoryException cause) {
		if (cause.factoryType() != null) {
			return new FailureAnalysis(
					cause.getMessage() + ". redeq runs on Lettuce, the Redis client of "
							+ "spring-boot-starter-data-redis, and uses the connection factory's own Lettuce client.",
					"Use Lettuce: remove the Jedis dependency (or the bean that creates a "
							+ cause.factoryType().getSimpleName() + "), or set redeq.enabled=false to turn redeq off.",
					cause);
		}
		if (cause.candidates() == 0) {
			return new FailureAnalysis(cause.getMessage()
					+ ". Spring Boot creates one from spring.data.redis.* unless its Redis auto-configuration "
					+ "(DataRedisAutoConfiguration) is excluded or a RedisConnectionFactory of another type is defined.",
					"Keep spring-boot-starter-data-redis's auto-configuration enabled, or define a "
							+ "LettuceConnectionFactory bean, or set redeq.enabled=false to turn redeq off.",
					cause);
		}
		return new FailureAnalysis(cause.getMessage() + ", and redeq cannot tell which one to use.",
				"Mark the LettuceConnectionFactory redeq should use as @Primary, or define your own Redeq bean.",
				cause);
	}

}
