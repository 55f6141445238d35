package io.redeq.spring.internal.journal;

import java.sql.SQLException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import io.redeq.test.PostgresServer;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

/** The journal on a real PostgreSQL server, started by the test support. */
@RedisTest
class JournalPostgresIntegrationTests extends PostgresJournalScenarios {

	private static PostgresServer postgres;

	JournalPostgresIntegrationTests(RedisServer redis) {
		super(redis, () -> postgres);
	}

	@BeforeAll
	static void startPostgres() {
		postgres = new PostgresServer().start();
	}

	@AfterAll
	static void stopPostgres() {
		postgres.close();
	}

	@BeforeEach
	void emptyJournal() throws SQLException {
		clearJournal(jdbcUrl(), user());
	}

}
