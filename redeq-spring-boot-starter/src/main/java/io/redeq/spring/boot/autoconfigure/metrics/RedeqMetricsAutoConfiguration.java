package io.redeq.spring.boot.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

import io.redeq.Redeq;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqBuilderCustomizer;

/**
 * Auto-configuration that records redeq's meters in the application's
 * {@link MeterRegistry} (Micrometer's, set up by Spring Boot's metrics
 * auto-configuration). Ordered after it by name, like Boot's own
 * {@code KafkaMetricsAutoConfiguration}, so that the starter has no hard link to the
 * metrics module.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = RedeqAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass({ Redeq.class, MeterRegistry.class })
@ConditionalOnBean(MeterRegistry.class)
public final class RedeqMetricsAutoConfiguration {

	@Bean
	RedeqBuilderCustomizer redeqMeterRegistryCustomizer(MeterRegistry registry) {
		return (builder) -> builder.meterRegistry(registry);
	}

}
