package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DataSourceUtils;

import io.redeq.Job;
import io.redeq.PayloadTooLargeException;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqJournalAutoConfiguration;
import io.redeq.spring.internal.transaction.TransactionAwareRedeqClient;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The journal on an embedded H2 database in PostgreSQL mode (the example application's
 * default): the table is created by default, the outbox and the relay work; and the
 * switches that leave redeq as it is without a journal.
 */
@RedisTest
class JournalH2IntegrationTests {

	private final ApplicationContextRunner runner;

	JournalH2IntegrationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					RedeqAutoConfiguration.class, RedeqJournalAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1",
					"redeq.consumer.poll-interval=100ms");
	}

	@Test
	void onAnEmbeddedDatabaseTheTableIsCreatedAndTheOutboxWorks() {
		this.runner.withPropertyValues("redeq.journal.enabled=true").run((context) -> {
			assertThat(context).hasSingleBean(RedeqJournal.class);
			assertThat(context.getBean(JournalDialect.class)).isEqualTo(JournalDialect.H2);
			assertThat(JournalRedeqAdmin.isJournaling(context.getBean(RedeqAdmin.class))).isTrue();
			assertThat(context.getBean(RedeqAdmin.class).topics()).isNotNull();
			JournalScenarios.Runs runs = JournalScenarios.subscribe(context, "h2");
			RedeqClient client = context.getBean(RedeqClient.class);
			JournalScenarios.transaction(context)
				.executeWithoutResult((status) -> client.schedule(Job.builder("h2").id("sent").payload("x").build()));
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			JournalScenarios.transaction(context)
				.executeWithoutResult((status) -> journal.outbox()
					.write(List.of(Job.builder("h2").id("relayed").payload("y").build())));
			Awaitility.await()
				.atMost(JournalScenarios.TIMEOUT)
				.until(() -> runs.count("sent") == 1 && runs.count("relayed") == 1);
			Awaitility.await()
				.atMost(JournalScenarios.TIMEOUT)
				.until(() -> JournalScenarios.completed(context, "h2") == 2);
			// A reused id starts a new history: the finished row is replaced.
			client.schedule(Job.builder("h2").id("sent").payload("x").delay(Duration.ofHours(1)).build());
			Awaitility.await()
				.atMost(JournalScenarios.TIMEOUT)
				.until(() -> JournalScenarios.row(context, "h2", "sent").get().state() == JournalState.SCHEDULED);
		});
	}

	@Test
	void aJobRedisRefusesForGoodIsMarkedDeadAndDoesNotBlockTheRelay() {
		this.runner.withPropertyValues("redeq.journal.enabled=true", "redeq.max-payload-size=1KB").run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			String big = "x".repeat(2000);
			assertThatExceptionOfType(PayloadTooLargeException.class)
				.isThrownBy(() -> JournalScenarios.transaction(context).executeWithoutResult((status) -> {
					client.schedule(Job.builder("refused").id("big").payload(big).build());
					client.schedule(Job.builder("refused").id("fine").payload("x").delay(Duration.ofHours(1)).build());
				}));
			// The commit happened, the send failed (redeq checks every payload of a batch
			// before it sends any). The relay sends the job that fits and marks the other
			// DEAD with the reason; it marks a refused row as it meets it and the sent
			// ones after the run, so the wait is for both.
			Awaitility.await()
				.atMost(JournalScenarios.TIMEOUT)
				.until(() -> JournalScenarios.row(context, "refused", "big").get().state() == JournalState.DEAD
						&& JournalScenarios.row(context, "refused", "fine").get().state() == JournalState.SCHEDULED);
			assertThat(client.find("refused", "fine")).isPresent();
			assertThat(JournalScenarios.row(context, "refused", "big").get().lastError()).contains("1024");
			assertThat(JournalScenarios.row(context, "refused", "fine").get().state())
				.isEqualTo(JournalState.SCHEDULED);
			assertThat(context.getBean(RedeqJournal.class).relayNow()).isZero();
		});
	}

	@Test
	void theWriterKeepsOrderOnH2() {
		this.runner.withPropertyValues("redeq.journal.enabled=true", "redeq.consumer.enabled=false")
			.run((context) -> JournalScenarios.writerKeepsOrder(context, JournalDialect.H2));
	}

	@Test
	void withTheJournalOffNothingChanges() {
		this.runner.run((context) -> {
			assertThat(context).doesNotHaveBean(RedeqJournal.class);
			assertThat(context.getBean(RedeqClient.class)).isInstanceOf(TransactionAwareRedeqClient.class);
			assertThat(JournalRedeqAdmin.isJournaling(context.getBean(RedeqAdmin.class))).isFalse();
			try (Connection connection = context.getBean(javax.sql.DataSource.class).getConnection();
					Statement statement = connection.createStatement()) {
				assertThat(statement
					.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'REDEQ_JOB'"))
					.satisfies((rows) -> {
						rows.next();
						assertThat(rows.getInt(1)).isZero();
					});
			}
		});
	}

	@Test
	void withoutSpringJdbcTheJournalBacksOffAndRedeqStillStarts() {
		new ApplicationContextRunner().withClassLoader(new FilteredClassLoader(DataSourceUtils.class))
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class,
					RedeqJournalAutoConfiguration.class))
			.withPropertyValues("redeq.journal.enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(RedeqJournal.class);
				assertThat(context.getBean(RedeqClient.class)).isInstanceOf(TransactionAwareRedeqClient.class);
			});
	}

	@Test
	void withoutADataSourceTheJournalBacksOff() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class,
					RedeqJournalAutoConfiguration.class))
			.withPropertyValues("redeq.journal.enabled=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(RedeqJournal.class);
			});
	}

}
