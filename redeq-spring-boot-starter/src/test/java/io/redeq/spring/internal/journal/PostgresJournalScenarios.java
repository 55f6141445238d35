package io.redeq.spring.internal.journal;

import java.util.function.Supplier;

import io.redeq.test.PostgresServer;
import io.redeq.test.RedisServer;

/** The journal's scenarios on a PostgreSQL server its test class starts and stops. */
class PostgresJournalScenarios extends JournalScenarios {

	private final Supplier<PostgresServer> postgres;

	/**
	 * Scenarios on {@code redis} and the test class's server.
	 * @param postgres the server, read when a scenario needs it (a test class starts it
	 * in its {@code @BeforeAll})
	 */
	PostgresJournalScenarios(RedisServer redis, Supplier<PostgresServer> postgres) {
		super(redis);
		this.postgres = postgres;
	}

	@Override
	String jdbcUrl() {
		return this.postgres.get().jdbcUrl();
	}

	@Override
	String user() {
		return PostgresServer.USER;
	}

	@Override
	void stopDatabase() {
		this.postgres.get().stop();
	}

	@Override
	void startDatabase() {
		this.postgres.get().start();
	}

}
