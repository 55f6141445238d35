package io.redeq.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

import io.redeq.Backoff;
import io.redeq.Recurring;
import io.redeq.RedeqOptions;
import io.redeq.SubscriptionOptions;
import io.redeq.internal.InvalidValueException;
import io.redeq.internal.control.RateLimit;
import io.redeq.spring.internal.journal.JournalSettings;

/**
 * Turns {@link RedeqProperties} into the core's {@link RedeqOptions} and
 * {@link SubscriptionOptions}. The core checks every value; a refused one becomes an
 * {@link InvalidConfigurationPropertyValueException} for the property that set it, so
 * that Spring Boot's failure analyzer reports the key, the value, where it was set (file
 * and line) and what is allowed.
 */
final class RedeqPropertiesMapper {

	private RedeqPropertiesMapper() {
	}

	static RedeqOptions options(RedeqProperties properties) {
		RedeqOptions.Builder options = RedeqOptions.builder();
		RedeqProperties.Migrator migrator = properties.getMigrator();
		RedeqProperties.Consumer consumer = properties.getConsumer();
		RedeqProperties.Durability durability = properties.getDurability();
		map("redeq.prefix", properties.getPrefix(), options::prefix);
		map("redeq.buckets", properties.getBuckets(), options::buckets);
		map("redeq.max-pending", properties.getMaxPending(), options::maxPending);
		map("redeq.max-payload-size", properties.getMaxPayloadSize(), (size) -> options.maxPayloadSize(size.toBytes()));
		options.migratorEnabled(migrator.isEnabled());
		map("redeq.migrator.batch-size", migrator.getBatchSize(), options::batchSize);
		map("redeq.migrator.sweep-interval", migrator.getSweepInterval(), options::sweepInterval);
		map("redeq.migrator.lock-ttl", migrator.getLockTtl(), options::lockTtl);
		map("redeq.consumer.concurrency", consumer.getConcurrency(), options::concurrency);
		mapIfSet("redeq.consumer.prefetch", consumer.getPrefetch(), options::prefetch);
		map("redeq.consumer.timeout", consumer.getTimeout(), options::timeout);
		map("redeq.consumer.max-attempts", consumer.getMaxAttempts(), options::maxAttempts);
		options.backoff(backoff("redeq.consumer.backoff", consumer.getBackoff()));
		options.blocking(consumer.isBlocking());
		map("redeq.consumer.poll-interval", consumer.getPollInterval(), options::pollInterval);
		options.proxyMode(properties.getRedis().isProxyMode());
		map("redeq.shutdown-timeout", properties.getShutdownTimeout(), options::shutdownTimeout);
		map("redeq.dead-letter.retention", properties.getDeadLetter().getRetention(), options::deadLetterRetention);
		map("redeq.command-timeout", properties.getCommandTimeout(), options::commandTimeout);
		map("redeq.durability.wait-replicas", durability.getWaitReplicas(), options::waitReplicas);
		map("redeq.durability.wait-timeout", durability.getWaitTimeout(), options::waitTimeout);
		map("redeq.stats-refresh-interval", properties.getStatsRefreshInterval(), options::statsRefreshInterval);
		return options.build();
	}

	/**
	 * The recurring jobs of {@code redeq.recurring.<id>.*}, checked (without Redis): a
	 * bad cron, period or payload fails the startup naming its key.
	 */
	static List<Recurring> recurring(RedeqProperties properties, ObjectMapper mapper) {
		List<Recurring> all = new ArrayList<>();
		properties.getRecurring().forEach((id, job) -> {
			String key = "redeq.recurring." + id;
			if (job.getTopic() == null) {
				throw new InvalidConfigurationPropertyValueException(key + ".topic", null,
						"every recurring job needs the topic of its occurrences");
			}
			Recurring.Builder builder = Recurring.builder(job.getTopic())
				.id(id)
				.zone(job.getZone())
				.missed(job.getMissed());
			if (job.getCron() != null) {
				builder.cron(job.getCron());
			}
			if (job.getEvery() != null) {
				builder.every(job.getEvery());
			}
			if (job.getPayload() != null) {
				try {
					builder.payload(mapper.readTree(job.getPayload()));
				}
				catch (JacksonException ex) {
					throw new InvalidConfigurationPropertyValueException(key + ".payload", job.getPayload(),
							"must be JSON text: " + ex.getOriginalMessage());
				}
			}
			try {
				all.add(builder.build());
			}
			catch (IllegalArgumentException | IllegalStateException ex) {
				throw new InvalidConfigurationPropertyValueException(key, id, ex.getMessage());
			}
		});
		return all;
	}

	/**
	 * The topic's overrides on top of nothing: unset values are left to the engine's
	 * {@code redeq.consumer.*} defaults.
	 */
	/** The journal's settings; a grace of twice the relay interval, at least 2 s. */
	static JournalSettings journalSettings(RedeqProperties.Journal journal) {
		Duration grace = journal.getRelayInterval().multipliedBy(2);
		if (grace.compareTo(Duration.ofSeconds(2)) < 0) {
			grace = Duration.ofSeconds(2);
		}
		return new JournalSettings(journal.getTablePrefix(), journal.getRetention(), journal.isAutoRecover(),
				journal.getRelayInterval(), grace, journal.getCheckInterval(), journal.getBufferCapacity(),
				journal.getBatchSize());
	}

	static SubscriptionOptions.Builder topicOptions(String topic, RedeqProperties.Topic settings,
			RedeqProperties.Backoff defaultBackoff) {
		String key = "redeq.topics." + topic;
		SubscriptionOptions.Builder builder = SubscriptionOptions.builder();
		mapIfSet(key + ".concurrency", settings.getConcurrency(), builder::concurrency);
		mapIfSet(key + ".max-attempts", settings.getMaxAttempts(), builder::maxAttempts);
		mapIfSet(key + ".timeout", settings.getTimeout(), builder::timeout);
		mapIfSet(key + ".rate-limit", settings.getRateLimit(), (text) -> {
			RateLimit limit = RateLimit.parse(text);
			builder.rateLimit(limit.permits(), limit.window());
		});
		RedeqProperties.TopicBackoff backoff = settings.getBackoff();
		if (!backoff.isEmpty()) {
			RedeqProperties.Backoff merged = new RedeqProperties.Backoff();
			merged.setInitial(orElse(backoff.getInitial(), defaultBackoff.getInitial()));
			merged.setMultiplier(orElse(backoff.getMultiplier(), defaultBackoff.getMultiplier()));
			merged.setMax(orElse(backoff.getMax(), defaultBackoff.getMax()));
			merged.setJitter(orElse(backoff.getJitter(), defaultBackoff.getJitter()));
			builder.backoff(backoff(key + ".backoff", merged));
		}
		return builder;
	}

	/**
	 * The backoff of a property group such as {@code redeq.consumer.backoff}. The core
	 * names a refused component {@code backoff.<component>}; the property is that
	 * component of the group.
	 */
	static Backoff backoff(String group, RedeqProperties.Backoff backoff) {
		try {
			return new Backoff(backoff.getInitial(), backoff.getMultiplier(), backoff.getMax(), backoff.getJitter());
		}
		catch (InvalidValueException ex) {
			String component = ex.name().substring(ex.name().lastIndexOf('.'));
			throw new InvalidConfigurationPropertyValueException(group + component, ex.value(), ex.reason(), ex);
		}
	}

	private static <T> void map(String key, T value, Consumer<T> setter) {
		try {
			setter.accept(value);
		}
		catch (InvalidValueException ex) {
			throw new InvalidConfigurationPropertyValueException(key, value, ex.reason(), ex);
		}
	}

	private static <T> void mapIfSet(String key, @Nullable T value, Consumer<T> setter) {
		if (value != null) {
			map(key, value, setter);
		}
	}

	private static <T> T orElse(@Nullable T value, T fallback) {
		return (value != null) ? value : fallback;
	}

}
