package io.redeq.spring.internal.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.Resource;
import org.springframework.util.StreamUtils;

/**
 * The journal's table: its name, its scripts, and the check at startup that it is there
 * and current. {@code JournalSchemaInitializer} (in the auto-configuration) runs the
 * scripts when asked; an application whose migrations (Flyway, Liquibase) own the schema
 * runs them there (see docs/journal.md).
 */
public final class JournalSchema {

	private static final Pattern TABLE_PREFIX = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,40}");

	/** The columns the journal reads and writes, in the order of the table. */
	static final List<String> COLUMNS = List.of("topic", "id", "state", "payload", "due_at", "attempts", "last_error",
			"created_at", "updated_at", "finished_at", "timeout_ms", "max_attempts", "priority", "on_duplicate",
			"trace_context", "recovered_in", "job_version", "accepted_at");

	private JournalSchema() {
	}

	/**
	 * The journal's table name for a prefix.
	 * @param tablePrefix letters, digits and underscores, starting with a letter or an
	 * underscore
	 * @return the table name
	 * @throws IllegalArgumentException naming the prefix if it is not a plain identifier
	 */
	public static String table(String tablePrefix) {
		if (!TABLE_PREFIX.matcher(tablePrefix).matches()) {
			throw new IllegalArgumentException("redeq.journal.table-prefix must be letters, digits and underscores "
					+ "(at most 41, not starting with a digit), but was '" + tablePrefix + "'");
		}
		return tablePrefix + "job";
	}

	/**
	 * A script of the starter's jar with the prefix filled in: the DDL as an
	 * application's migration would hold it.
	 * @param location the script, {@link JournalDialect#schemaLocation()} or
	 * {@link JournalDialect#upgradeLocation()}
	 * @param tablePrefix the table prefix
	 * @return the script's text
	 */
	public static String script(String location, String tablePrefix) {
		table(tablePrefix);
		Resource resource = new DefaultResourceLoader().getResource(location);
		try {
			String script = StreamUtils.copyToString(resource.getInputStream(), StandardCharsets.UTF_8);
			return script.replace("${prefix}", tablePrefix);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + location, ex);
		}
	}

	/**
	 * Fails at startup, with what to do, when the journal's table is missing or lacks
	 * columns of the current version: better than failing the first transaction that
	 * schedules a job.
	 * @param dataSource the database
	 * @param dialect its dialect
	 * @param tablePrefix the table prefix
	 * @throws IllegalStateException naming the table, the missing columns and the script
	 * to run
	 */
	public static void requireTable(DataSource dataSource, JournalDialect dialect, String tablePrefix) {
		String table = table(tablePrefix);
		try (Connection connection = dataSource.getConnection()) {
			if (canSelect(connection, table, String.join(", ", COLUMNS))) {
				return;
			}
			if (!canSelect(connection, table, "topic, id, state")) {
				throw new IllegalStateException("redeq journal table " + table + " is missing. Create it with the "
						+ "script " + dialect.schemaLocation() + " (from your Flyway or Liquibase migrations) or set "
						+ "redeq.journal.initialize-schema=always");
			}
			List<String> missing = new ArrayList<>();
			for (String column : COLUMNS) {
				if (!canSelect(connection, table, column)) {
					missing.add(column);
				}
			}
			throw new IllegalStateException("redeq journal table " + table + " lacks the columns " + missing
					+ " of journal schema version " + JournalDialect.SCHEMA_VERSION + ". Upgrade it with the script "
					+ dialect.upgradeLocation() + " (from your Flyway or Liquibase migrations, see docs/journal.md) or "
					+ "set redeq.journal.initialize-schema=always");
		}
		catch (SQLException ex) {
			throw new IllegalStateException("redeq journal could not check its table " + table + ": " + ex.getMessage(),
					ex);
		}
	}

	/**
	 * Whether the columns can be read. The data source's connections auto-commit, so a
	 * failed try (PostgreSQL aborts the transaction it ran in) does not spoil the next.
	 */
	private static boolean canSelect(Connection connection, String table, String columns) {
		try (Statement statement = connection.createStatement()) {
			statement.executeQuery("SELECT " + columns + " FROM " + table + " WHERE 1 = 0").close();
			return true;
		}
		catch (SQLException ex) {
			return false;
		}
	}

}
