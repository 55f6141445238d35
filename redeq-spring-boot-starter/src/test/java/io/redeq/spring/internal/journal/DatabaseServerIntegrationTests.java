package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Test;

import io.redeq.test.MariaDbServer;
import io.redeq.test.PostgresServer;
import io.redeq.test.TcpPorts;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database servers the journal tests use (from the test support, tested here, with
 * the journal, so that the test support's own tests need Redis alone): each starts as
 * this JVM's own process on a free port, keeps its data across a stop and a start, and is
 * gone after close.
 */
class DatabaseServerIntegrationTests {

	@Test
	void postgresKeepsDataAcrossRestartAndIsNotTheMachinesServer() throws SQLException {
		try (PostgresServer postgres = new PostgresServer().start()) {
			assertThat(postgres.port()).isNotEqualTo(5432);
			execute(postgres.jdbcUrl(), PostgresServer.USER, "CREATE TABLE kept (n INT)",
					"INSERT INTO kept VALUES (7)");
			postgres.stop();
			assertThat(postgres.isRunning()).isFalse();
			assertThat(TcpPorts.isOpen("127.0.0.1", postgres.port())).isFalse();
			postgres.start();
			assertThat(count(postgres.jdbcUrl(), PostgresServer.USER, "SELECT n FROM kept")).isEqualTo(7);
		}
	}

	@Test
	void mariaDbKeepsDataAcrossRestartAndIsNotTheMachinesServer() throws SQLException {
		try (MariaDbServer mariadb = new MariaDbServer().start()) {
			assertThat(mariadb.port()).isNotEqualTo(3306);
			execute(mariadb.jdbcUrl(), MariaDbServer.USER, "CREATE TABLE kept (n INT)", "INSERT INTO kept VALUES (7)");
			mariadb.stop();
			assertThat(mariadb.isRunning()).isFalse();
			mariadb.start();
			assertThat(count(mariadb.jdbcUrl(), MariaDbServer.USER, "SELECT n FROM kept")).isEqualTo(7);
		}
	}

	private static void execute(String url, String user, String... statements) throws SQLException {
		try (Connection connection = DriverManager.getConnection(url, user, "");
				Statement statement = connection.createStatement()) {
			for (String sql : statements) {
				statement.execute(sql);
			}
		}
	}

	private static int count(String url, String user, String query) throws SQLException {
		try (Connection connection = DriverManager.getConnection(url, user, "");
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(query)) {
			assertThat(rows.next()).isTrue();
			return rows.getInt(1);
		}
	}

}
