package io.redeq.spring.internal.journal;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.util.function.Function;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The journal's relay claims rows with {@code FOR UPDATE SKIP LOCKED}: a database too old
 * for it stops the application at startup, with the version found and the oldest one
 * supported, rather than a relay that fails on every run. Product names and versions as
 * the JDBC drivers report them.
 */
class JournalDatabaseVersionTests {

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			PostgreSQL | 9.6.0
			PostgreSQL | 15.4
			PostgreSQL | 16.1 (Debian 16.1-1.pgdg120+1)
			MySQL      | 8.0.1
			MySQL      | 8.4.0
			MariaDB    | 10.6.12-MariaDB
			MariaDB    | 10.11.19-MariaDB-0+deb12u1
			MariaDB    | 11.4.2-MariaDB
			MySQL      | 5.5.5-10.6.12-MariaDB-1:10.6.12+maria~ubu2004
			H2         | 2.2.224 (2023-09-17)
			""")
	void aRecentEnoughDatabaseIsAccepted(String product, String version) {
		assertThatNoException()
			.isThrownBy(() -> JournalDatabaseVersion.require(JournalDialect.of(product), product, version));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			PostgreSQL | 9.5.25                                     | PostgreSQL 9.6 or later
			MySQL      | 8.0.0-dmr                                  | MySQL 8.0.1 or later
			MySQL      | 5.7.44                                     | MySQL 8.0.1 or later
			MariaDB    | 10.5.21-MariaDB                            | MariaDB 10.6 or later
			MySQL      | 5.5.5-10.3.39-MariaDB-0+deb10u1            | MariaDB 10.6 or later
			H2         | 1.4.200 (2019-10-14)                       | H2 2.0 or later
			""")
	void anOlderDatabaseStopsTheStartupNamingTheVersionFoundAndTheMinimum(String product, String version,
			String minimum) {
		assertThatIllegalStateException()
			.isThrownBy(() -> JournalDatabaseVersion.require(JournalDialect.of(product), product, version))
			.withMessageContaining(minimum)
			.withMessageContaining(version)
			.withMessageContaining("SKIP LOCKED")
			.withMessageContaining("redeq.journal.enabled=false");
	}

	@Test
	void aVersionThatCannotBeReadStopsTheStartupSayingSo() {
		assertThatIllegalStateException()
			.isThrownBy(() -> JournalDatabaseVersion.require(JournalDialect.MYSQL, "MySQL", "unknown"))
			.withMessageContaining("could not read the version")
			.withMessageContaining("'unknown'");
	}

	/** What the auto-configuration calls: before, any MariaDB was taken. */
	@Test
	void theDialectOfADataSourceChecksTheVersionOfItsDatabase() {
		assertThatIllegalStateException().isThrownBy(() -> JournalDialect.of(database("MariaDB", "10.5.21-MariaDB")))
			.withMessageContaining("MariaDB 10.6 or later")
			.withMessageContaining("10.5.21-MariaDB");
		assertThat(JournalDialect.of(database("MariaDB", "10.6.12-MariaDB"))).isEqualTo(JournalDialect.MYSQL);
	}

	/** A data source whose connections' metadata name the given database. */
	private static DataSource database(String product, String version) {
		DatabaseMetaData metaData = proxy(DatabaseMetaData.class, (method) -> switch (method) {
			case "getDatabaseProductName" -> product;
			case "getDatabaseProductVersion" -> version;
			default -> null;
		});
		Connection connection = proxy(Connection.class, (method) -> method.equals("getMetaData") ? metaData : null);
		return proxy(DataSource.class, (method) -> method.equals("getConnection") ? connection : null);
	}

	private static <T> T proxy(Class<T> type, Function<String, @Nullable Object> answers) {
		return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type },
				(proxy, method, args) -> answers.apply(method.getName())));
	}

}
