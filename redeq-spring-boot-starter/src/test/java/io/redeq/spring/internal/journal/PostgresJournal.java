package io.redeq.spring.internal.journal;

import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.test.PostgresServer;
import io.redeq.test.RedisServer;

/**
 * A PostgreSQL server for one test class's journal, registered with
 * {@code @RegisterExtension} on a static field: started before the class's first test,
 * the journal's tables emptied before each test, stopped after the last.
 */
final class PostgresJournal implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

	private @Nullable PostgresServer server;

	@Override
	public void beforeAll(ExtensionContext context) {
		this.server = new PostgresServer().start();
	}

	@Override
	public void beforeEach(ExtensionContext context) throws Exception {
		JournalScenarios.clearJournal(server().jdbcUrl(), PostgresServer.USER);
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (this.server != null) {
			this.server.close();
		}
	}

	/** The running server. */
	PostgresServer server() {
		return Objects.requireNonNull(this.server, "PostgreSQL starts before the test class's first test");
	}

	/**
	 * The application on {@code redis} journaling to this server
	 * ({@link PostgresJournalRunner}).
	 * @param properties the test's own {@code redeq.*} settings
	 */
	ApplicationContextRunner runner(RedisServer redis, String... properties) {
		return PostgresJournalRunner.runner(redis, server(), properties);
	}

}
