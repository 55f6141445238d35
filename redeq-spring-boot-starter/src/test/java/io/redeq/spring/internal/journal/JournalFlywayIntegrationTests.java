package io.redeq.spring.internal.journal;

import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.Job;
import io.redeq.RedeqClient;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqJournalAutoConfiguration;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application whose Flyway migrations own the journal's table (the two migrations of
 * docs/journal.md: version 1, then the upgrade to version 2), with
 * {@code redeq.journal.initialize-schema=never}: the journal starts after Flyway ran and
 * works.
 */
@RedisTest
class JournalFlywayIntegrationTests {

	private final ApplicationContextRunner runner;

	JournalFlywayIntegrationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					FlywayAutoConfiguration.class, RedeqAutoConfiguration.class, RedeqJournalAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1",
					"spring.flyway.locations=classpath:db/redeq-journal", "redeq.journal.enabled=true",
					"redeq.journal.initialize-schema=never", "redeq.consumer.poll-interval=100ms");
	}

	@Test
	void theJournalStartsOnTheTableFlywayCreatedAndWorks() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			JournalScenarios.Runs runs = JournalScenarios.subscribe(context, "flyway");
			RedeqClient client = context.getBean(RedeqClient.class);
			JournalScenarios.transaction(context)
				.executeWithoutResult((status) -> client
					.schedule(Job.builder("flyway").id("migrated").payload("x").priority(4).build()));
			Awaitility.await().atMost(JournalScenarios.TIMEOUT).until(() -> runs.count("migrated") == 1);
			Awaitility.await()
				.atMost(JournalScenarios.TIMEOUT)
				.until(() -> JournalScenarios.completed(context, "flyway") == 1);
			assertThat(JournalScenarios.column(context, "flyway", "migrated", "priority")).isEqualTo("4");
		});
	}

}
