package io.redeq.spring.internal.journal;

import java.sql.SQLException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import io.redeq.test.MariaDbServer;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

/** The journal on a real MariaDB server, started by the test support. */
@RedisTest
class JournalMariaDbIntegrationTests extends JournalScenarios {

	private static MariaDbServer mariadb;

	JournalMariaDbIntegrationTests(RedisServer redis) {
		super(redis);
	}

	@BeforeAll
	static void startMariaDb() {
		mariadb = new MariaDbServer().start();
	}

	@AfterAll
	static void stopMariaDb() {
		mariadb.close();
	}

	@BeforeEach
	void emptyJournal() throws SQLException {
		clearJournal(jdbcUrl(), user());
	}

	@Override
	String jdbcUrl() {
		return mariadb.jdbcUrl();
	}

	@Override
	String user() {
		return MariaDbServer.USER;
	}

	@Override
	void stopDatabase() {
		mariadb.stop();
	}

	@Override
	void startDatabase() {
		mariadb.start();
	}

}
