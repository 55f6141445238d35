package io.redeq.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.function.Supplier;

import io.redeq.Backoff;
import io.redeq.Redeq;
import io.redeq.SubscriptionOptions;

/**
 * Applies {@link RedeqProperties} to the core's builders. Every invalid value fails with
 * an {@link IllegalArgumentException} whose message starts with the full property key,
 * names the value and what is allowed ({@link RedeqConfigurationFailureAnalyzer} turns it
 * into a clean startup report).
 */
final class RedeqPropertiesMapper {

	private RedeqPropertiesMapper() {
	}

	static Redeq.Builder apply(RedeqProperties properties, Redeq.Builder builder) {
		RedeqProperties.Migrator migrator = properties.getMigrator();
		RedeqProperties.Consumer consumer = properties.getConsumer();
		builder.prefix(properties.getPrefix())
			.buckets(properties.getBuckets())
			.maxPending(properties.getMaxPending())
			.maxPayloadSize(properties.getMaxPayloadSize().toBytes())
			.migratorEnabled(migrator.isEnabled())
			.batchSize(migrator.getBatchSize())
			.sweepInterval(migrator.getSweepInterval())
			.lockTtl(migrator.getLockTtl())
			.concurrency(consumer.getConcurrency())
			.timeout(consumer.getTimeout())
			.maxAttempts(consumer.getMaxAttempts())
			.backoff(backoff("redeq.consumer.backoff", consumer.getBackoff()))
			.blocking(consumer.isBlocking())
			.pollInterval(consumer.getPollInterval())
			.shutdownTimeout(properties.getShutdownTimeout())
			.deadLetterRetention(properties.getDeadLetter().getRetention())
			.commandTimeout(properties.getCommandTimeout())
			.waitReplicas(properties.getDurability().getWaitReplicas())
			.waitTimeout(properties.getDurability().getWaitTimeout())
			.statsRefreshInterval(properties.getStatsRefreshInterval());
		return builder;
	}

	static Backoff backoff(String key, RedeqProperties.Backoff backoff) {
		return named(key, () -> new Backoff(backoff.getInitial(), backoff.getMultiplier(), backoff.getMax(),
				backoff.getJitter()));
	}

	/**
	 * The topic's overrides on top of nothing: unset values are left to the engine's
	 * {@code redeq.consumer.*} defaults.
	 */
	static SubscriptionOptions.Builder topicOptions(String topic, RedeqProperties.Topic settings,
			RedeqProperties.Backoff defaultBackoff) {
		String key = "redeq.topics." + topic;
		SubscriptionOptions.Builder builder = SubscriptionOptions.builder();
		if (settings.getConcurrency() != null) {
			builder.concurrency(atLeastOne(key + ".concurrency", settings.getConcurrency()));
		}
		if (settings.getMaxAttempts() != null) {
			builder.maxAttempts(atLeastOne(key + ".max-attempts", settings.getMaxAttempts()));
		}
		if (settings.getTimeout() != null) {
			builder.timeout(positive(key + ".timeout", settings.getTimeout()));
		}
		RedeqProperties.TopicBackoff backoff = settings.getBackoff();
		if (!backoff.isEmpty()) {
			RedeqProperties.Backoff merged = new RedeqProperties.Backoff();
			merged.setInitial((backoff.getInitial() != null) ? backoff.getInitial() : defaultBackoff.getInitial());
			merged.setMultiplier(
					(backoff.getMultiplier() != null) ? backoff.getMultiplier() : defaultBackoff.getMultiplier());
			merged.setMax((backoff.getMax() != null) ? backoff.getMax() : defaultBackoff.getMax());
			merged.setJitter((backoff.getJitter() != null) ? backoff.getJitter() : defaultBackoff.getJitter());
			builder.backoff(backoff(key + ".backoff", merged));
		}
		return builder;
	}

	private static int atLeastOne(String key, int value) {
		if (value < 1) {
			throw new IllegalArgumentException(key + " must be at least 1, but was " + value);
		}
		return value;
	}

	private static Duration positive(String key, Duration value) {
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(key + " must be a positive duration, but was " + value);
		}
		return value;
	}

	/**
	 * Prefixes the core's "backoff.max must ..." messages with the property group they
	 * belong to. The core's exception is not kept as the cause: its message is contained
	 * whole, and the root cause is what users and analyzers read.
	 */
	private static <T> T named(String key, Supplier<T> factory) {
		try {
			return factory.get();
		}
		catch (IllegalArgumentException ex) {
			String message = String.valueOf(ex.getMessage());
			throw new IllegalArgumentException(message.startsWith("backoff.")
					? key + message.substring("backoff".length()) : key + ": " + message);
		}
	}

}
