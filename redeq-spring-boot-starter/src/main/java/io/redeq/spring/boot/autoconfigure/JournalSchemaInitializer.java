package io.redeq.spring.boot.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;
import org.springframework.util.StreamUtils;

import io.redeq.spring.internal.journal.JournalDialect;
import io.redeq.spring.internal.journal.JournalSchema;

/**
 * Creates or upgrades the journal's table through Spring Boot's own database
 * initialization, as Spring Batch's and Quartz's auto-configurations create theirs: the
 * schema script of the database (a table of the current version, {@code IF NOT EXISTS}),
 * then its upgrade script (each statement guarded, so a table already current is left
 * alone and a table of the previous version gains the missing columns, keeping its rows).
 * When it runs is {@code redeq.journal.initialize-schema}: {@code embedded} (an in-memory
 * database, Spring Boot's test), {@code always} or {@code never}. Being a
 * {@link DataSourceScriptDatabaseInitializer}, it runs before the beans that depend on
 * database initialization, after Flyway and Liquibase.
 */
public final class JournalSchemaInitializer extends DataSourceScriptDatabaseInitializer {

	private static final String PREFIX_PLACEHOLDER = "${prefix}";

	private final String tablePrefix;

	/**
	 * Creates the initializer; it runs when the context initializes it.
	 * @param dataSource the application's database
	 * @param dialect its dialect
	 * @param tablePrefix the table prefix (checked: a plain identifier)
	 * @param mode when the scripts run
	 */
	public JournalSchemaInitializer(DataSource dataSource, JournalDialect dialect, String tablePrefix,
			DatabaseInitializationMode mode) {
		super(dataSource, settings(dialect, mode));
		JournalSchema.table(tablePrefix);
		this.tablePrefix = tablePrefix;
	}

	/**
	 * The settings: the dialect's schema script then its upgrade script, stopping at the
	 * first statement that fails.
	 * @param dialect the database
	 * @param mode when the scripts run
	 * @return the settings
	 */
	static DatabaseInitializationSettings settings(JournalDialect dialect, DatabaseInitializationMode mode) {
		DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
		settings.setSchemaLocations(List.of(dialect.schemaLocation(), dialect.upgradeLocation()));
		settings.setMode(mode);
		settings.setContinueOnError(false);
		settings.setEncoding(StandardCharsets.UTF_8);
		return settings;
	}

	/** Runs the scripts with the table prefix filled in. */
	@Override
	protected void runScripts(Scripts scripts) {
		Charset encoding = (scripts.getEncoding() != null) ? scripts.getEncoding() : StandardCharsets.UTF_8;
		List<Resource> resolved = new ArrayList<>();
		for (Resource script : scripts) {
			resolved.add(withPrefix(script, encoding));
		}
		super.runScripts(new Scripts(resolved).continueOnError(scripts.isContinueOnError())
			.separator(scripts.getSeparator())
			.encoding(encoding));
	}

	private Resource withPrefix(Resource script, Charset encoding) {
		try {
			String text = StreamUtils.copyToString(script.getInputStream(), encoding);
			byte[] resolved = text.replace(PREFIX_PLACEHOLDER, this.tablePrefix).getBytes(encoding);
			return new ByteArrayResource(resolved, script.getDescription());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("redeq journal could not read " + script.getDescription(), ex);
		}
	}

}
