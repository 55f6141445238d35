package io.redeq.spring.boot.autoconfigure;

import io.lettuce.core.AbstractRedisClient;
import io.micrometer.observation.ObservationRegistry;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

import io.redeq.JobLifecycleListener;
import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.RedeqProcessObservationConvention;
import io.redeq.RedeqScheduleObservationConvention;
import io.redeq.spring.internal.transaction.TransactionAwareRedeqClient;

/**
 * Auto-configuration of redeq: a {@link Redeq} engine on the native Lettuce client of the
 * application's {@link LettuceConnectionFactory} (so {@code spring.data.redis.*} is the
 * one Redis configuration), its {@link RedeqClient} and {@link RedeqAdmin}, and
 * {@link io.redeq.spring.RedeqListener @RedeqListener} methods.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class,
		afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass({ Redeq.class, LettuceConnectionFactory.class })
@ConditionalOnBooleanProperty(name = "redeq.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedeqProperties.class)
@Import({ RedeqAutoConfiguration.EngineConfiguration.class, RedeqListenerConfiguration.class })
public final class RedeqAutoConfiguration {

	private static final boolean TRANSACTIONS_PRESENT = ClassUtils.isPresent(
			"org.springframework.transaction.support.TransactionSynchronizationManager",
			RedeqAutoConfiguration.class.getClassLoader());

	/**
	 * The client, transaction-aware unless {@code redeq.transactional=false} or spring-tx
	 * is absent. One method rather than two conditional configurations, whose order
	 * Spring does not guarantee for nested classes.
	 */
	@Bean
	@ConditionalOnMissingBean
	RedeqClient redeqClient(Redeq redeq, RedeqProperties properties) {
		if (properties.isTransactional() && TRANSACTIONS_PRESENT) {
			return new TransactionAwareRedeqClient(redeq.client());
		}
		return redeq.client();
	}

	@Bean
	@ConditionalOnMissingBean
	RedeqAdmin redeqAdmin(Redeq redeq) {
		return redeq.admin();
	}

	@Bean
	static RedisSafetyChecks redeqRedisSafetyChecks(ObjectProvider<RedisConnectionFactory> connectionFactory) {
		return new RedisSafetyChecks(connectionFactory);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(Redeq.class)
	static class EngineConfiguration {

		@Bean(destroyMethod = "close")
		Redeq redeq(RedeqProperties properties, ObjectProvider<RedisConnectionFactory> connectionFactory,
				ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<ObjectMapper> objectMapper,
				ObjectProvider<JobLifecycleListener> lifecycleListeners,
				ObjectProvider<RedeqBuilderCustomizer> customizers,
				ObjectProvider<ObservationRegistry> observationRegistry,
				ObjectProvider<RedeqScheduleObservationConvention> scheduleConvention,
				ObjectProvider<RedeqProcessObservationConvention> processConvention, Environment environment) {
			// Started by RedeqEngineLifecycle, not here: a bean's creation must not write
			// to Redis, and the migrator must not run in a context that then fails.
			Redeq.Builder builder = Redeq.builder(nativeClient(connectionFactory))
				.options(RedeqPropertiesMapper.options(properties))
				.autoStartup(false);
			builder.payloadMapper(PayloadMapperLookup.payloadMapper(jsonMapper, objectMapper));
			lifecycleListeners.orderedStream().forEach(builder::lifecycleListener);
			// Polled jobs follow the settings a listener of their topic gets from
			// configuration; read at the first poll, so that an application that never
			// polls is not refused for a topic setting only its listeners check.
			SingletonSupplier<PropertiesListenerDefaults> topics = SingletonSupplier
				.of(() -> new PropertiesListenerDefaults(TopicOverrides.resolve(environment, properties),
						properties.getConsumer().getBackoff(), properties.getConsumer().getNotRetryable()));
			builder.pollSettings((topic) -> topics.obtain().forTopic(topic).build(),
					(topic) -> topics.obtain().notRetryable(topic));
			if (properties.getObservation().isEnabled()) {
				// Like spring-kafka's observationEnabled: off by default, so that an
				// application with tracing on does not store trace context with every job
				// unless it asks to.
				builder.observationRegistry(observationRegistry.getIfUnique())
					.scheduleObservationConvention(scheduleConvention.getIfUnique())
					.processObservationConvention(processConvention.getIfUnique());
			}
			customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
			// One read, no write: an instance follows the bucket count recorded in Redis
			// (RedeqAdmin.changeBucketCount) whatever redeq.buckets says.
			return builder.followRecordedBucketCount().build();
		}

		@Bean
		RedeqEngineLifecycle redeqEngineLifecycle(Redeq redeq, RedeqProperties properties,
				ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<ObjectMapper> objectMapper) {
			return new RedeqEngineLifecycle(redeq, RedeqPropertiesMapper.recurring(properties,
					PayloadMapperLookup.payloadMapper(jsonMapper, objectMapper)));
		}

		/**
		 * The factory's own Lettuce client; redeq never closes it (the factory does). A
		 * factory created with early startup off is started here, since its client exists
		 * only once it runs.
		 */
		private static AbstractRedisClient nativeClient(ObjectProvider<RedisConnectionFactory> provider) {
			RedisConnectionFactory factory = provider.getIfUnique();
			if (factory == null) {
				throw new RedeqConnectionFactoryException(provider.stream().count(), null);
			}
			if (!(factory instanceof LettuceConnectionFactory lettuce)) {
				throw new RedeqConnectionFactoryException(1, factory.getClass());
			}
			if (!lettuce.isRunning()) {
				lettuce.start();
			}
			return lettuce.getRequiredNativeClient();
		}

	}

}
