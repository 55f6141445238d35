package io.redeq.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when the application has no single Lettuce-based Redis connection factory for
 * redeq to run on.
 */
class RedeqConnectionFactoryException extends IllegalStateException {

	private final long candidates;

	private final @Nullable Class<?> factoryType;

	RedeqConnectionFactoryException(long candidates, @Nullable Class<?> factoryType) {
		super((factoryType != null)
				? "redeq needs a LettuceConnectionFactory, but the RedisConnectionFactory is a " + factoryType.getName()
				: "redeq needs one RedisConnectionFactory (a LettuceConnectionFactory), but the application has "
						+ candidates);
		this.candidates = candidates;
		this.factoryType = factoryType;
	}

	long candidates() {
		return this.candidates;
	}

	@Nullable Class<?> factoryType() {
		return this.factoryType;
	}

}
