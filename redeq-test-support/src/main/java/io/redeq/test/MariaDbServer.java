package io.redeq.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A real MariaDB server for tests: {@code mariadb-install-db} into a temp dir, then
 * {@code mariadbd} as a child process on a free port of 127.0.0.1 (never the machine's
 * own 3306), with a database {@value #DATABASE} that user {@value #USER} reaches without
 * a password. Durability settings are off for speed.
 *
 * <p>
 * The server runs without grant tables: tests need a database, not its access control.
 * Under root it runs with {@code --user=root}, which mariadbd otherwise refuses.
 */
public final class MariaDbServer extends LocalDatabaseProcess {

	/** The user tests connect as (no password). */
	public static final String USER = "root";

	/** The database tests connect to. */
	public static final String DATABASE = "redeq";

	/** The commands that install the server. */
	static final String INSTALL = "sudo apt-get install mariadb-server (Debian/Ubuntu) or brew install mariadb (macOS)";

	/** Debian's and Homebrew's directories (relative to the root), after the PATH. */
	private static final List<String> USUAL_DIRS = List.of("usr/sbin", "usr/bin", "opt/homebrew/bin",
			"opt/homebrew/sbin", "usr/local/bin", "usr/local/sbin", "opt/homebrew/opt/mariadb/bin",
			"usr/local/opt/mariadb/bin");

	private final Path server;

	private final Path installDb;

	/** Finds the binaries; nothing runs until {@link #start()}. */
	public MariaDbServer() {
		super("mariadb");
		ProgramLocations where = ProgramLocations.system();
		this.server = require("mariadbd", where);
		this.installDb = require("mariadb-install-db", where);
	}

	/**
	 * Starts the server (again, with its data, after {@link #stop()}) and returns once it
	 * accepts connections.
	 * @return this server
	 */
	public MariaDbServer start() {
		startProcess();
		return this;
	}

	/**
	 * Where to connect.
	 * @return the JDBC URL of database {@value #DATABASE}
	 */
	public String jdbcUrl() {
		return "jdbc:mariadb://" + HOST + ":" + port() + "/" + DATABASE;
	}

	/**
	 * A MariaDB program on the {@code PATH}, else where Debian ({@code mariadbd} in
	 * {@code /usr/sbin}) or Homebrew installs it.
	 */
	static Optional<Path> find(String program, ProgramLocations where) {
		return where.find(program, USUAL_DIRS);
	}

	private static Path require(String program, ProgramLocations where) {
		return find(program, where).orElseThrow(() -> new DatabaseNotAvailableException("MariaDB program '" + program
				+ "' not found on PATH or in " + String.join(", ", USUAL_DIRS) + "; install it: " + INSTALL));
	}

	@Override
	void initialize(Path dataDir, int port) {
		List<String> command = command(this.installDb.toString(), "--no-defaults", "--datadir=" + dataDir,
				"--auth-root-authentication-method=normal", "--skip-test-db");
		if (runningAsRoot()) {
			command.add("--user=root");
		}
		run(command, dataDir.getParent());
	}

	@Override
	List<String> serverCommand(Path dataDir, int port) {
		Path init = dataDir.getParent().resolve("init.sql");
		try {
			Files.writeString(init, "CREATE DATABASE IF NOT EXISTS " + DATABASE + ";\n");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<String> command = command(this.server.toString(), "--no-defaults", "--datadir=" + dataDir,
				"--port=" + port, "--bind-address=" + HOST, "--socket=" + dataDir.getParent().resolve("mysqld.sock"),
				"--pid-file=" + dataDir.getParent().resolve("mysqld.pid"), "--skip-grant-tables", "--skip-name-resolve",
				"--init-file=" + init, "--innodb-buffer-pool-size=32M", "--innodb-flush-log-at-trx-commit=0",
				"--skip-log-bin", "--max-connections=60");
		if (runningAsRoot()) {
			command.add("--user=root");
		}
		return command;
	}

	@Override
	String readyLine() {
		return "ready for connections";
	}

	/** SIGTERM is mariadbd's normal shutdown; it does not wait for clients. */
	@Override
	void requestFastShutdown(Process process) {
		signal(process, "TERM");
	}

}
