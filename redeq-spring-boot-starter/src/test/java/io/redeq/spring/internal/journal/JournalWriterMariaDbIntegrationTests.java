package io.redeq.spring.internal.journal;

import java.sql.SQLException;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import io.redeq.test.MariaDbServer;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

/** The journal's writer when events go wrong, on a real MariaDB server. */
@RedisTest
class JournalWriterMariaDbIntegrationTests extends JournalWriterScenarios {

	private static MariaDbServer mariadb;

	JournalWriterMariaDbIntegrationTests(RedisServer redis) {
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
		JournalScenarios.clearJournal(jdbcUrl(), user());
	}

	@Override
	String jdbcUrl() {
		return mariadb.jdbcUrl();
	}

	@Override
	String user() {
		return MariaDbServer.USER;
	}

	/**
	 * A table created by the application's own migration with a shorter error column than
	 * redeq's script (200 characters): MariaDB in its default strict mode refuses a
	 * longer text rather than cut it.
	 */
	@Override
	AutoCloseable refuseErrors(DataSource dataSource) throws SQLException {
		execute(dataSource, "ALTER TABLE redeq_job MODIFY last_error VARCHAR(200)");
		return () -> execute(dataSource, "ALTER TABLE redeq_job MODIFY last_error VARCHAR(1000)");
	}

	@Override
	String refusedError() {
		return "java.lang.IllegalStateException: " + "order 42 could not be shipped; ".repeat(20);
	}

}
