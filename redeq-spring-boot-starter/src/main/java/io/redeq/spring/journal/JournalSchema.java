package io.redeq.spring.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.Resource;
import org.springframework.util.StreamUtils;

/**
 * Creates the journal's table, the way Spring Batch creates its own: on an embedded
 * database by default, on any database when asked ({@code always}), never when the
 * application's migrations (Flyway, Liquibase) own the schema. The scripts use
 * {@code IF NOT EXISTS}, so running them again is harmless.
 */
public final class JournalSchema {

	private static final Log logger = LogFactory.getLog(JournalSchema.class);

	private static final Pattern TABLE_PREFIX = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,40}");

	/** When the schema script runs. */
	public enum Initialization {

		/** Only on an embedded database (H2). */
		EMBEDDED,

		/** On every start. */
		ALWAYS,

		/** Never: the application creates the table itself. */
		NEVER

	}

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
	 * The schema script of a dialect with the prefix filled in, as the statements to run.
	 * @param dialect the database
	 * @param tablePrefix the table prefix
	 * @return the statements
	 */
	public static String[] statements(JournalDialect dialect, String tablePrefix) {
		table(tablePrefix);
		Resource resource = new DefaultResourceLoader().getResource(dialect.schemaLocation());
		try {
			String script = StreamUtils.copyToString(resource.getInputStream(), StandardCharsets.UTF_8);
			String withoutComments = script.replaceAll("(?m)^--.*$", "");
			return withoutComments.replace("${prefix}", tablePrefix).split(";\\s*");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + dialect.schemaLocation(), ex);
		}
	}

	/**
	 * Fails at startup, with what to do, when the journal's table is missing: better than
	 * failing the first transaction that schedules a job.
	 * @param dataSource the database
	 * @param dialect its dialect
	 * @param tablePrefix the table prefix
	 * @throws IllegalStateException if the table cannot be read
	 */
	public static void requireTable(DataSource dataSource, JournalDialect dialect, String tablePrefix) {
		String table = table(tablePrefix);
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement
				.executeQuery("SELECT topic, id, state, payload, due_at, attempts, last_error, created_at, "
						+ "updated_at, finished_at FROM " + table + " WHERE 1 = 0")
				.close();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("redeq journal table " + table + " is missing or incomplete ("
					+ ex.getMessage() + "). Create it with the script " + dialect.schemaLocation()
					+ " (from your Flyway or Liquibase migrations) or set redeq.journal.initialize-schema=always", ex);
		}
	}

	/**
	 * Runs the schema script if {@code initialization} asks for it.
	 * @param dataSource the database
	 * @param dialect its dialect
	 * @param tablePrefix the table prefix
	 * @param initialization when to run it
	 * @return whether the script ran
	 */
	public static boolean initialize(DataSource dataSource, JournalDialect dialect, String tablePrefix,
			Initialization initialization) {
		if (initialization == Initialization.NEVER
				|| (initialization == Initialization.EMBEDDED && !dialect.isEmbedded())) {
			return false;
		}
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			for (String sql : statements(dialect, tablePrefix)) {
				if (!sql.isBlank()) {
					statement.execute(sql);
				}
			}
			if (!connection.getAutoCommit()) {
				connection.commit();
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("redeq journal could not create table " + table(tablePrefix) + " ("
					+ dialect.schemaLocation() + "): " + ex.getMessage(), ex);
		}
		logger.debug("redeq journal schema ready: " + table(tablePrefix));
		return true;
	}

}
