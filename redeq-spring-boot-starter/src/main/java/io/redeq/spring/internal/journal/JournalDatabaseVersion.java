package io.redeq.spring.internal.journal;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The oldest server version of each database the journal runs on. The outbox relay claims
 * rows with {@code SELECT ... FOR UPDATE SKIP LOCKED}: an older MySQL or MariaDB refuses
 * that clause, and its relay would fail on every run while the application otherwise
 * starts, so the version is checked at startup.
 */
final class JournalDatabaseVersion {

	/**
	 * {@code SKIP LOCKED} (PostgreSQL 9.5, MySQL 8.0.1, MariaDB 10.6; H2 2.x) and
	 * {@code ADD COLUMN IF NOT EXISTS} of the schema upgrade (PostgreSQL 9.6).
	 */
	private static final int[] POSTGRESQL = { 9, 6, 0 };

	private static final int[] MYSQL = { 8, 0, 1 };

	private static final int[] MARIADB = { 10, 6, 0 };

	private static final int[] H2 = { 2, 0, 0 };

	/** The leading "x.y.z" of a version string. */
	private static final Pattern NUMBERS = Pattern.compile("^(\\d+)(?:\\.(\\d+))?(?:\\.(\\d+))?");

	/**
	 * MariaDB before 11 prefixes its version with "5.5.5-" for old MySQL clients, as the
	 * MySQL driver reports it: "5.5.5-10.6.12-MariaDB".
	 */
	private static final String MARIADB_PREFIX = "5.5.5-";

	private JournalDatabaseVersion() {
	}

	/**
	 * Fails unless the database is recent enough for the journal.
	 * @param dialect the dialect found for it
	 * @param productName the driver's database product name
	 * @param productVersion the driver's database product version
	 * @throws IllegalStateException naming the version found and the oldest supported
	 */
	static void require(JournalDialect dialect, String productName, String productVersion) {
		boolean mariaDb = productName.toLowerCase(Locale.ROOT).contains("mariadb")
				|| productVersion.toLowerCase(Locale.ROOT).contains("mariadb");
		String name = switch (dialect) {
			case POSTGRESQL -> "PostgreSQL";
			case MYSQL -> mariaDb ? "MariaDB" : "MySQL";
			case H2 -> "H2";
		};
		int[] minimum = switch (dialect) {
			case POSTGRESQL -> POSTGRESQL;
			case MYSQL -> mariaDb ? MARIADB : MYSQL;
			case H2 -> H2;
		};
		String version = (mariaDb && productVersion.startsWith(MARIADB_PREFIX))
				? productVersion.substring(MARIADB_PREFIX.length()) : productVersion;
		int[] found = parse(version);
		if (found == null) {
			throw new IllegalStateException("redeq journal could not read the version of the DataSource's " + name
					+ " ('" + productVersion + "'); it needs " + name + " " + describe(minimum)
					+ " or later (for SELECT ... FOR UPDATE SKIP LOCKED); turn it off with "
					+ "redeq.journal.enabled=false");
		}
		if (compare(found, minimum) < 0) {
			throw new IllegalStateException("redeq journal needs " + name + " " + describe(minimum)
					+ " or later (its outbox relay claims rows with SELECT ... FOR UPDATE SKIP LOCKED), but the "
					+ "DataSource is " + name + " " + productVersion + "; upgrade the database, or turn the journal "
					+ "off with redeq.journal.enabled=false");
		}
	}

	private static int @Nullable [] parse(String version) {
		Matcher matcher = NUMBERS.matcher(version.trim());
		if (!matcher.find()) {
			return null;
		}
		int[] parts = new int[3];
		for (int i = 0; i < 3; i++) {
			String part = matcher.group(i + 1);
			parts[i] = (part != null) ? Integer.parseInt(part) : 0;
		}
		return parts;
	}

	private static int compare(int[] a, int[] b) {
		for (int i = 0; i < 3; i++) {
			if (a[i] != b[i]) {
				return Integer.compare(a[i], b[i]);
			}
		}
		return 0;
	}

	private static String describe(int[] version) {
		return version[0] + "." + version[1] + ((version[2] != 0) ? "." + version[2] : "");
	}

}
