package io.redeq.spring.internal.journal;

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

	/** PostgreSQL 9.6 or later. */
	POSTGRESQL("postgresql"),

	/** MySQL 8 or MariaDB 10.6 or later (both have {@code SKIP LOCKED}). */
	MYSQL("mysql"),

	/** H2 2.x, for embedded use; it runs the PostgreSQL scripts. */
	H2("postgresql");

	/** The version of the table the scripts of this release create. */
	static final int SCHEMA_VERSION = 2;

	private static final String COLUMNS = "topic, id, state, payload, due_at, attempts, last_error, created_at, "
			+ "updated_at, finished_at, timeout_ms, max_attempts, priority, on_duplicate, trace_context, job_version, "
			+ "accepted_at";

	private static final String VALUES = "VALUES (?, ?, ?, ?, ?, 0, NULL, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)";

	/**
	 * The columns an insert over an earlier row of the same key sets from the insert (the
	 * rest start over: attempts, last error, finished time, recovery mark).
	 */
	private static final String[] REPLACED = { "state", "payload", "due_at", "updated_at", "timeout_ms", "max_attempts",
			"priority", "on_duplicate", "trace_context", "job_version", "accepted_at" };

	private final String scripts;

	JournalDialect(String scripts) {
		this.scripts = scripts;
	}

	/**
	 * The resource path of this database's schema script (the table of the current
	 * version), inside the starter's jar.
	 * @return a classpath location
	 */
	public String schemaLocation() {
		return "classpath:io/redeq/spring/journal/schema-" + this.scripts + ".sql";
	}

	/**
	 * The resource path of the script that upgrades a table of the previous version to
	 * the current one; every statement in it is guarded, so running it on a current table
	 * does nothing.
	 * @return a classpath location
	 */
	public String upgradeLocation() {
		return "classpath:io/redeq/spring/journal/schema-upgrade-" + SCHEMA_VERSION + "-" + this.scripts + ".sql";
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
	 * job under a reused id starts a new history), with two exceptions. A row that
	 * finished at or after this insert's time stays as it is: the insert is late news of
	 * the same job (it finished before its "scheduled" event was written). And an outbox
	 * row of a job scheduled with {@code KEEP} or {@code REJECT} leaves a pending row
	 * (one not finished) as it is: Redis keeps (or refuses to replace) the job that row
	 * describes, so its payload and settings stay the journal's. Of two versions Redis
	 * stored, the one it stored last wins, whichever instance's writer comes last: a
	 * "scheduled" event does not replace a row whose version Redis accepted later
	 * ({@code accepted_at}, Redis's clock). Parameters: topic, id, state, payload,
	 * due_at, created_at, updated_at, timeout_ms, max_attempts, priority, on_duplicate,
	 * trace_context, job_version, accepted_at.
	 */
	String upsert(String table) {
		String replaces = "((%1$sfinished_at IS NULL AND (%2$sstate <> '" + JournalState.OUTBOX
				+ "' OR %2$son_duplicate = '" + io.redeq.Duplicate.REPLACE + "')) OR %1$sfinished_at < %2$supdated_at)"
				+ " AND (%1$saccepted_at IS NULL OR %2$saccepted_at IS NULL OR %2$saccepted_at >= %1$saccepted_at)";
		return switch (this) {
			case POSTGRESQL -> {
				StringBuilder sql = new StringBuilder("INSERT INTO " + table + " AS j (" + COLUMNS + ") " + VALUES
						+ " ON CONFLICT (topic, id) DO UPDATE SET ");
				for (String column : REPLACED) {
					sql.append(column).append(" = EXCLUDED.").append(column).append(", ");
				}
				sql.append("attempts = 0, last_error = NULL, finished_at = NULL, recovered_in = NULL WHERE ")
					.append(String.format(replaces, "j.", "EXCLUDED."));
				yield sql.toString();
			}
			case MYSQL -> {
				// Assignments run left to right and see the values set before them, so
				// finished_at, which the condition reads, is set last.
				String condition = mysqlCondition();
				StringBuilder sql = new StringBuilder(
						"INSERT INTO " + table + " (" + COLUMNS + ") " + VALUES + " ON DUPLICATE KEY UPDATE ");
				for (String column : REPLACED) {
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
				sql.append("recovered_in = IF(").append(condition).append(", NULL, recovered_in), ");
				sql.append("finished_at = IF(").append(condition).append(", NULL, finished_at)");
				yield sql.toString();
			}
			case H2 -> {
				StringBuilder sql = new StringBuilder("MERGE INTO " + table
						+ " j USING (VALUES (CAST(? AS VARCHAR(200)), CAST(? AS VARCHAR(200)), "
						+ "CAST(? AS VARCHAR(16)), CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS BIGINT), "
						+ "CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS INTEGER), CAST(? AS INTEGER), "
						+ "CAST(? AS VARCHAR(8)), CAST(? AS VARCHAR(512)), CAST(? AS VARCHAR(32)), CAST(? AS BIGINT))) s (topic, "
						+ "id, state, payload, due_at, created_at, updated_at, timeout_ms, max_attempts, priority, "
						+ "on_duplicate, trace_context, job_version, accepted_at) "
						+ "ON j.topic = s.topic AND j.id = s.id WHEN MATCHED AND " + String.format(replaces, "j.", "s.")
						+ " THEN UPDATE SET ");
				for (String column : REPLACED) {
					sql.append(column).append(" = s.").append(column).append(", ");
				}
				sql.append("attempts = 0, last_error = NULL, finished_at = NULL, recovered_in = NULL ")
					.append("WHEN NOT MATCHED THEN INSERT (")
					.append(COLUMNS)
					.append(") VALUES (s.topic, s.id, s.state, s.payload, s.due_at, 0, NULL, s.created_at, ")
					.append("s.updated_at, NULL, s.timeout_ms, s.max_attempts, s.priority, s.on_duplicate, ")
					.append("s.trace_context, s.job_version, s.accepted_at)");
				yield sql.toString();
			}
		};
	}

	/**
	 * The condition of {@link #upsert} in MySQL's terms: the inserted values through
	 * VALUES().
	 */
	private static String mysqlCondition() {
		return "(((finished_at IS NULL AND (VALUES(state) <> '" + JournalState.OUTBOX + "' OR VALUES(on_duplicate) = '"
				+ io.redeq.Duplicate.REPLACE + "')) OR finished_at < VALUES(updated_at)) AND (accepted_at IS NULL OR "
				+ "VALUES(accepted_at) IS NULL OR VALUES(accepted_at) >= accepted_at))";
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
