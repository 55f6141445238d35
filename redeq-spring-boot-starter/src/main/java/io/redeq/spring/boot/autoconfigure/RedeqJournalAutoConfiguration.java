package io.redeq.spring.boot.autoconfigure;

import java.time.Clock;

import javax.sql.DataSource;

import io.micrometer.core.instrument.binder.MeterBinder;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.datasource.DataSourceUtils;

import io.redeq.JobLifecycleListener;
import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.internal.EngineAccess;
import io.redeq.spring.internal.journal.BucketMarkers;
import io.redeq.spring.internal.journal.JournalDialect;
import io.redeq.spring.internal.journal.JournalMeterBinder;
import io.redeq.spring.internal.journal.JournalRedeqAdmin;
import io.redeq.spring.internal.journal.JournalSchema;
import io.redeq.spring.internal.journal.JournalSettings;
import io.redeq.spring.internal.journal.JournalWriter;
import io.redeq.spring.internal.journal.RedeqJournal;
import io.redeq.spring.internal.transaction.TransactionAwareRedeqClient;

/**
 * Auto-configuration of the redeq journal ({@code redeq.journal.enabled=true}) in the
 * application's {@link DataSource}: the table (per
 * {@code redeq.journal.initialize-schema}), a client that writes jobs scheduled in a
 * transaction to the outbox and journals what Redis accepted, a listener that journals
 * each job's outcome, and an admin whose {@link RedeqAdmin#recoverFromJournal()} works.
 * Runs before {@link RedeqAutoConfiguration}, whose client and admin then back off.
 * Without spring-jdbc, a single DataSource or the property, nothing here exists and redeq
 * behaves as without a journal.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = RedeqAutoConfiguration.class, after = DataRedisAutoConfiguration.class,
		afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
				"org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration" })
@ConditionalOnClass({ Redeq.class, LettuceConnectionFactory.class, DataSourceUtils.class,
		DataSourceScriptDatabaseInitializer.class })
@ConditionalOnBooleanProperty(name = "redeq.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("redeq.journal.enabled")
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(RedeqProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public final class RedeqJournalAutoConfiguration {

	/** Starts before the engine and stops after it. */
	static final int PHASE = RedeqEngineLifecycle.PHASE - 10;

	/**
	 * Creates or upgrades the table per {@code redeq.journal.initialize-schema}, through
	 * Spring Boot's database initialization (so after Flyway and Liquibase). An
	 * application may declare its own to replace it.
	 */
	@Bean
	@ConditionalOnMissingBean
	JournalSchemaInitializer redeqJournalSchemaInitializer(DataSource dataSource, RedeqProperties properties) {
		RedeqProperties.Journal journal = properties.getJournal();
		return new JournalSchemaInitializer(dataSource, JournalDialect.of(dataSource), journal.getTablePrefix(),
				DatabaseInitializationMode.valueOf(journal.getInitializeSchema().name()));
	}

	/**
	 * The database's dialect, once every database initializer ran (Flyway, Liquibase, the
	 * journal's own): the table is checked here, and every journal bean needs this one.
	 */
	@Bean
	@DependsOnDatabaseInitialization
	JournalDialect redeqJournalDialect(DataSource dataSource, RedeqProperties properties) {
		JournalDialect dialect = JournalDialect.of(dataSource);
		JournalSchema.requireTable(dataSource, dialect, properties.getJournal().getTablePrefix());
		return dialect;
	}

	@Bean
	JournalWriter redeqJournalWriter(DataSource dataSource, JournalDialect dialect, RedeqProperties properties) {
		JournalSettings settings = RedeqPropertiesMapper.journalSettings(properties.getJournal());
		return new JournalWriter(dataSource, dialect, settings.table(), settings.bufferCapacity(),
				settings.batchSize());
	}

	@Bean
	JobLifecycleListener redeqJournalLifecycleListener(JournalWriter writer) {
		return writer.lifecycleListener(Clock.systemUTC());
	}

	@Bean
	RedeqJournal redeqJournal(DataSource dataSource, JournalDialect dialect, JournalWriter writer, Redeq redeq,
			RedeqProperties properties, ObjectProvider<RedisConnectionFactory> connectionFactory,
			ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<ObjectMapper> objectMapper) {
		JournalSettings settings = RedeqPropertiesMapper.journalSettings(properties.getJournal());
		// The markers of the bucket count the engine runs on at each check: it follows a
		// change of the count while the application runs.
		BucketMarkers markers = new BucketMarkers(connectionFactory.getObject(), redeq.options().prefix(),
				() -> redeq.options().buckets());
		ObjectMapper mapper = PayloadMapperLookup.payloadMapper(jsonMapper, objectMapper);
		// The redeq.recurring.* jobs, declared again after Redis lost the buckets holding
		// them (the engine declares them at startup only).
		return new RedeqJournal(dataSource, dialect, settings, writer, redeq.client(), EngineAccess.restorer(redeq),
				EngineAccess.journalHooks(redeq), markers, mapper, RedeqPropertiesMapper.recurring(properties, mapper),
				Clock.systemUTC(), PHASE);
	}

	@Bean
	@ConditionalOnMissingBean
	RedeqClient redeqClient(Redeq redeq, RedeqJournal journal, RedeqProperties properties) {
		RedeqClient journaling = journal.journaling(redeq.client());
		if (properties.isTransactional()) {
			return new TransactionAwareRedeqClient(journaling, journal.outbox());
		}
		return journaling;
	}

	@Bean
	@ConditionalOnMissingBean
	RedeqAdmin redeqAdmin(Redeq redeq, RedeqJournal journal) {
		return JournalRedeqAdmin.wrap(redeq.admin(), journal);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterBinder.class)
	static class JournalMetricsConfiguration {

		@Bean
		JournalMeterBinder redeqJournalMeterBinder(RedeqJournal journal) {
			return new JournalMeterBinder(journal);
		}

	}

}
