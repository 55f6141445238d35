package io.redeq.spring.boot.autoconfigure.health;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.redeq.Redeq;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqJournalAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqProperties;
import io.redeq.spring.internal.health.RedeqHealthIndicator;
import io.redeq.spring.internal.health.RedeqJournalHealthIndicator;
import io.redeq.spring.internal.journal.RedeqJournal;

/**
 * Auto-configuration of the {@code redeq} health contributor, when spring-boot-health is
 * present and {@code management.health.redeq.enabled} is not false. Modelled on Boot's
 * {@code DataRedisHealthContributorAutoConfiguration}; a single engine needs no
 * composite.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { RedeqAutoConfiguration.class, RedeqJournalAutoConfiguration.class })
@ConditionalOnClass({ Redeq.class, HealthIndicator.class })
@ConditionalOnBean(Redeq.class)
@ConditionalOnEnabledHealthIndicator("redeq")
public final class RedeqHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "redeqHealthIndicator")
	RedeqHealthIndicator redeqHealthIndicator(Redeq redeq, ObjectProvider<RedeqProperties> properties) {
		// No RedeqProperties bean when the application brings its own Redeq with
		// redeq.enabled=false: the thresholds then keep their defaults.
		RedeqProperties.Health health = properties.getIfAvailable(RedeqProperties::new).getHealth();
		return new RedeqHealthIndicator(redeq, health.getMigrationLagThreshold(), health.getReadyWaitThreshold());
	}

	/** The journal's health, beside the engine's, when the journal is on. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(RedeqJournal.class)
	@ConditionalOnEnabledHealthIndicator("redeqjournal")
	static class JournalHealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "redeqJournalHealthIndicator")
		RedeqJournalHealthIndicator redeqJournalHealthIndicator(RedeqJournal journal) {
			return new RedeqJournalHealthIndicator(journal);
		}

	}

}
