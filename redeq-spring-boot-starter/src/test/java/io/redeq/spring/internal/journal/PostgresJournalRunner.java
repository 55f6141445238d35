package io.redeq.spring.internal.journal;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqJournalAutoConfiguration;
import io.redeq.test.PostgresServer;
import io.redeq.test.RedisServer;

/**
 * The application the journal's tests on PostgreSQL run: Redis, a data source and its
 * transaction manager, redeq and its journal, whose schema it creates; each test adds its
 * own intervals.
 */
final class PostgresJournalRunner {

	private PostgresJournalRunner() {
	}

	/**
	 * An application on {@code redis} journaling to {@code postgres}.
	 * @param properties the test's own {@code redeq.*} settings
	 */
	static ApplicationContextRunner runner(RedisServer redis, PostgresServer postgres, String... properties) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					RedeqAutoConfiguration.class, RedeqJournalAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"spring.datasource.url=" + postgres.jdbcUrl(), "spring.datasource.username=" + PostgresServer.USER,
					"spring.datasource.password=", "redeq.journal.enabled=true",
					"redeq.journal.initialize-schema=always")
			.withPropertyValues(properties);
	}

}
