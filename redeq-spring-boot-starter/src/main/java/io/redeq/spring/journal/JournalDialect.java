package io.redeq.spring.journal;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

import javax.sql.DataSource;

/**
 * The databases the journal runs on, and the little SQL that differs between them: the
 * schema script and the "insert or update" of a job row.
 */
public enum JournalDialect {

	/** PostgreSQL 9.5 or later. */
	POSTGRESQL("schema-postgresql.sql"),

	/** MySQL 8 or MariaDB 10.6 or later (both have {@code SKIP LOCKED}). */
	MYSQL("schema-mysql.sql"),

	/** H2 2.x, for embedded use; it runs the PostgreSQL script. */
	H2("schema-postgresql.sql");

	private static final String COLUMNS = "topic, id, state, payload, due_at, attempts, last_error, created_at, "
			+ "updated_at, finished_at";

	private static final String VALUES = "VALUES (?, ?, ?, ?, ?, 0, NULL, ?, ?, NULL)";

	private final String schemaScript;

	JournalDialect(String schemaScript) {
		this.schemaScript = schemaScript;
	}

	/**
	 * The resource path of this database's schema script, inside the starter's jar.
	 * @return a classpath location
	 */
	public String schemaLocation() {
		return "classpath:io/redeq/spring/journal/" + this.schemaScript;
	}

	/**
	 * Whether this is a database that lives inside the application's process.
	 * @return true for H2
	 */
	public boolean isEmbedded() {
		return this == H2;
	}

	/**
	 * An insert that replaces the row of an earlier job with the same topic and id (a new
	 * job under a reused id starts a new history), unless that row finished at or after
	 * this insert's time: then the insert is late news of the same job (it finished
	 * before its "scheduled" event was written) and the row stays as it is. Parameters:
	 * topic, id, state, payload, due_at, created_at, updated_at.
	 */
	String upsert(String table) {
		String fresh = "(finished_at IS NULL OR finished_at < %s)";
		return switch (this) {
			case POSTGRESQL -> "INSERT INTO " + table + " AS j (" + COLUMNS + ") " + VALUES
					+ " ON CONFLICT (topic, id) DO UPDATE SET state = EXCLUDED.state, payload = EXCLUDED.payload, "
					+ "due_at = EXCLUDED.due_at, attempts = 0, last_error = NULL, updated_at = EXCLUDED.updated_at, "
					+ "finished_at = NULL WHERE j.finished_at IS NULL OR j.finished_at < EXCLUDED.updated_at";
			case MYSQL -> {
				// Assignments run left to right and see the values set before them, so
				// finished_at, which the condition reads, is set last.
				String condition = String.format(fresh, "VALUES(updated_at)");
				StringBuilder sql = new StringBuilder(
						"INSERT INTO " + table + " (" + COLUMNS + ") " + VALUES + " ON DUPLICATE KEY UPDATE ");
				for (String column : new String[] { "state", "payload", "due_at", "updated_at" }) {
					sql.append(column)
						.append(" = IF(")
						.append(condition)
						.append(", VALUES(")
						.append(column)
						.append("), ")
						.append(column)
						.append("), ");
				}
				sql.append("attempts = IF(").append(condition).append(", 0, attempts), ");
				sql.append("last_error = IF(").append(condition).append(", NULL, last_error), ");
				sql.append("finished_at = IF(").append(condition).append(", NULL, finished_at)");
				yield sql.toString();
			}
			case H2 -> "MERGE INTO " + table + " j USING (VALUES (CAST(? AS VARCHAR(200)), CAST(? AS VARCHAR(200)), "
					+ "CAST(? AS VARCHAR(16)), CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BIGINT), "
					+ "CAST(? AS BIGINT))) s (topic, id, state, payload, due_at, created_at, updated_at) "
					+ "ON j.topic = s.topic AND j.id = s.id "
					+ "WHEN MATCHED AND (j.finished_at IS NULL OR j.finished_at < s.updated_at) THEN UPDATE SET "
					+ "state = s.state, payload = s.payload, due_at = s.due_at, attempts = 0, last_error = NULL, "
					+ "updated_at = s.updated_at, finished_at = NULL " + "WHEN NOT MATCHED THEN INSERT (" + COLUMNS
					+ ") VALUES (s.topic, s.id, s.state, s.payload, "
					+ "s.due_at, 0, NULL, s.created_at, s.updated_at, NULL)";
		};
	}

	/**
	 * The dialect of the database behind a data source.
	 * @param dataSource the application's data source
	 * @return its dialect
	 * @throws IllegalStateException for a database the journal does not support, or a
	 * version of it older than the journal needs
	 */
	public static JournalDialect of(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			DatabaseMetaData database = connection.getMetaData();
			String product = database.getDatabaseProductName();
			JournalDialect dialect = of(product);
			JournalDatabaseVersion.require(dialect, product, database.getDatabaseProductVersion());
			return dialect;
		}
		catch (SQLException ex) {
			throw new IllegalStateException(
					"redeq journal could not reach its database to learn its kind: " + ex.getMessage(), ex);
		}
	}

	static JournalDialect of(String productName) {
		String product = productName.toLowerCase(Locale.ROOT);
		if (product.contains("postgres")) {
			return POSTGRESQL;
		}
		if (product.contains("mysql") || product.contains("mariadb")) {
			return MYSQL;
		}
		if (product.equals("h2")) {
			return H2;
		}
		throw new IllegalStateException("redeq journal supports PostgreSQL, MySQL, MariaDB and H2, but the "
				+ "DataSource is '" + productName + "'; turn it off with redeq.journal.enabled=false");
	}

}
