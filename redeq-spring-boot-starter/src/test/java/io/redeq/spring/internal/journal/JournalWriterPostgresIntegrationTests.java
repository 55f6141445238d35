package io.redeq.spring.internal.journal;

import java.sql.SQLException;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import io.redeq.test.PostgresServer;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

/** The journal's writer when events go wrong, on a real PostgreSQL server. */
@RedisTest
class JournalWriterPostgresIntegrationTests extends JournalWriterScenarios {

	private static PostgresServer postgres;

	JournalWriterPostgresIntegrationTests(RedisServer redis) {
		super(redis);
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
		JournalScenarios.clearJournal(jdbcUrl(), user());
	}

	@Override
	String jdbcUrl() {
		return postgres.jdbcUrl();
	}

	@Override
	String user() {
		return PostgresServer.USER;
	}

	/** PostgreSQL's text types cannot hold a NUL character: nothing to prepare. */
	@Override
	AutoCloseable refuseErrors(DataSource dataSource) {
		return () -> {
		};
	}

	/** An exception message with binary data in it, as some drivers and parsers write. */
	@Override
	String refusedError() {
		return "java.io.IOException: unexpected byte \u0000 at offset 7";
	}

}
