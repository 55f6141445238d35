package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

import io.lettuce.core.RedisClient;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.Redeq;
import io.redeq.test.JavaProcess;
import io.redeq.test.PostgresServer;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application SIGKILLed after its transaction committed and before redeq sent the job:
 * another instance's relay sends it, and it runs exactly once.
 */
@RedisTest
class JournalCrashIntegrationTests {

	private static PostgresServer postgres;

	private final RedisServer redis;

	private final RedisClient lettuce;

	JournalCrashIntegrationTests(RedisServer redis, RedisClient lettuce) {
		this.redis = redis;
		this.lettuce = lettuce;
	}

	private static String state(String id) throws SQLException {
		try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl(), PostgresServer.USER, "");
				PreparedStatement select = connection
					.prepareStatement("SELECT state FROM redeq_job WHERE topic = 'crash' AND id = ?")) {
			select.setString(1, id);
			try (ResultSet rows = select.executeQuery()) {
				return rows.next() ? rows.getString(1) : "(no row)";
			}
		}
	}

	@BeforeAll
	static void startPostgres() {
		postgres = new PostgresServer().start();
	}

	@AfterAll
	static void stopPostgres() {
		postgres.close();
	}

	@Test
	void aJobCommittedByAProcessKilledBeforeTheSendRunsOnce() throws SQLException {
		try (JavaProcess dying = JavaProcess.start(CommitThenHangApplication.class, Integer.toString(this.redis.port()),
				postgres.jdbcUrl(), PostgresServer.USER, "killed-1")) {
			dying.awaitLine((line) -> line.contains(CommitThenHangApplication.COMMITTED), Duration.ofSeconds(120));
			dying.kill();
		}
		// The commit happened, the send did not.
		assertThat(state("killed-1")).isEqualTo("OUTBOX");
		try (Redeq reader = Redeq.builder(this.lettuce).autoStartup(false).migratorEnabled(false).build()) {
			assertThat(reader.client().find("crash", "killed-1")).isEmpty();
		}
		ApplicationContextRunner survivor = new PostgresJournalScenarios(this.redis, () -> postgres).runner();
		survivor.run((context) -> {
			// Its relay sends the row at startup.
			JournalScenarios.Runs runs = JournalScenarios.subscribe(context, "crash");
			Awaitility.await().atMost(JournalScenarios.TIMEOUT).until(() -> runs.count("killed-1") == 1);
			Awaitility.await()
				.atMost(JournalScenarios.TIMEOUT)
				.until(() -> JournalScenarios.row(context, "crash", "killed-1")
					.get()
					.state() == JournalState.COMPLETED);
			assertThat(runs.count("killed-1")).isEqualTo(1);
			assertThat(runs.payloads()).containsExactly("from the dead");
		});
	}

}
