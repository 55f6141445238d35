package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import io.redeq.Redeq;
import io.redeq.RedeqClient;
import io.redeq.test.PostgresServer;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the journal costs a transaction that schedules a job: the same loop (one business
 * row inserted and one job scheduled per transaction, on PostgreSQL) with the journal off
 * and on, timed and printed; and every job of both runs reached Redis. The numbers are a
 * rough guide on a shared machine, not a benchmark (docs/journal.md).
 */
@RedisTest
class JournalCostIntegrationTests {

	private static final int WARM_UP = 300;

	private static final int TRANSACTIONS = 2000;

	private static final int SLICE = 50;

	private static PostgresServer postgres;

	private final RedisServer redis;

	JournalCostIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	@BeforeAll
	static void startPostgres() {
		postgres = new PostgresServer().start();
	}

	@AfterAll
	static void stopPostgres() {
		postgres.close();
	}

	/**
	 * Both applications run side by side and take turns, a slice of transactions each, so
	 * that the load of the shared machine weighs on both alike.
	 */
	@Test
	void scheduleInATransactionWithTheJournalOffAndOn() {
		JournalScenarios setup = new PostgresJournalScenarios(this.redis, () -> postgres);
		setup.runner()
			.withPropertyValues("redeq.journal.enabled=false", "redeq.consumer.enabled=false", "redeq.max-pending=0")
			.run((off) -> setup.runner()
				.withPropertyValues("redeq.journal.enabled=true", "redeq.consumer.enabled=false", "redeq.max-pending=0")
				.run((on) -> {
					Side without = new Side(off, "cost.off");
					Side with = new Side(on, "cost.on");
					for (int i = 0; i < WARM_UP / SLICE; i++) {
						without.run(SLICE);
						with.run(SLICE);
					}
					without.nanos = 0;
					with.nanos = 0;
					for (int i = 0; i < TRANSACTIONS / SLICE; i++) {
						without.run(SLICE);
						with.run(SLICE);
					}
					double offMillis = without.nanos / 1e6 / TRANSACTIONS;
					double onMillis = with.nanos / 1e6 / TRANSACTIONS;
					System.out.printf(Locale.ROOT,
							"journal cost: transaction with insert + schedule, mean over %d each: journal off %.3f ms, "
									+ "journal on %.3f ms (x%.2f)%n",
							TRANSACTIONS, offMillis, onMillis, onMillis / offMillis);
					assertThat(off.getBean(Redeq.class).admin().stats("cost.off").delayed())
						.isEqualTo(WARM_UP + TRANSACTIONS);
					assertThat(on.getBean(Redeq.class).admin().stats("cost.on").delayed())
						.isEqualTo(WARM_UP + TRANSACTIONS);
					assertThat(on.getBean(RedeqJournal.class).writer().flush(Duration.ofSeconds(60))).isTrue();
					assertThat(count(on, "cost.on")).isEqualTo(WARM_UP + TRANSACTIONS);
				}));
	}

	private static void run(TransactionTemplate transaction, JdbcTemplate jdbc, RedeqClient client, String topic,
			int times) {
		for (int i = 0; i < times; i++) {
			transaction.executeWithoutResult((status) -> {
				jdbc.update("INSERT INTO orders (note) VALUES ('x')");
				client.schedule(topic, "order", Duration.ofHours(1));
			});
		}
	}

	private static long count(AssertableApplicationContext context, String topic) throws Exception {
		try (Connection connection = context.getBean(DataSource.class).getConnection();
				Statement statement = connection.createStatement()) {
			ResultSet rows = statement
				.executeQuery("SELECT COUNT(*) FROM redeq_job WHERE topic = '" + topic + "' AND state = 'SCHEDULED'");
			rows.next();
			return rows.getLong(1);
		}
	}

	/** One application of the comparison and the time its transactions took. */
	private static final class Side {

		private final TransactionTemplate transaction;

		private final JdbcTemplate jdbc;

		private final RedeqClient client;

		private final String topic;

		private long nanos;

		Side(AssertableApplicationContext context, String topic) {
			this.transaction = JournalScenarios.transaction(context);
			this.jdbc = new JdbcTemplate(context.getBean(DataSource.class));
			this.jdbc.execute("CREATE TABLE IF NOT EXISTS orders (id BIGSERIAL PRIMARY KEY, note VARCHAR(50))");
			this.client = context.getBean(RedeqClient.class);
			this.topic = topic;
		}

		void run(int times) {
			long start = System.nanoTime();
			JournalCostIntegrationTests.run(this.transaction, this.jdbc, this.client, this.topic, times);
			this.nanos += System.nanoTime() - start;
		}

	}

}
