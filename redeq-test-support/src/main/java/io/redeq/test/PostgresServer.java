package io.redeq.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A real PostgreSQL server for tests: {@code initdb} into a temp dir, then
 * {@code postgres} as a child process on a free port of 127.0.0.1 (never the machine's
 * own 5432), durability settings off for speed. One superuser {@value #USER} without a
 * password, database {@value #DATABASE}.
 *
 * <pre>{@code
 * try (PostgresServer postgres = new PostgresServer().start()) {
 *     DataSource dataSource = ...postgres.jdbcUrl(), PostgresServer.USER, "" ...
 * }
 * }</pre>
 *
 * <p>
 * PostgreSQL refuses to run as root: when the JVM runs as root, the server and
 * {@code initdb} run as the OS user {@code postgres} (through {@code setpriv}, which
 * keeps the PID, so {@link #stop()} signals the server itself). Binaries: the directory
 * in {@value #BIN_ENV}, else the newest {@code /usr/lib/postgresql/<version>/bin}
 * (Debian), else the newest Homebrew {@code postgresql@<version>} (under
 * {@code /opt/homebrew/opt} or {@code /usr/local/opt}), else {@code initdb} on
 * {@code PATH} or in Homebrew's {@code bin}.
 */
public final class PostgresServer extends LocalDatabaseProcess {

	/**
	 * Environment variable naming the directory holding {@code initdb} and
	 * {@code postgres}.
	 */
	public static final String BIN_ENV = "REDEQ_POSTGRES_BIN";

	/** The superuser tests connect as (no password). */
	public static final String USER = "redeq";

	/** The database tests connect to. */
	public static final String DATABASE = "postgres";

	private static final String OS_USER = "postgres";

	/** Where {@link #findBinaries} looks after {@value #BIN_ENV}, for messages. */
	static final String SEARCHED = "/usr/lib/postgresql/*/bin, /opt/homebrew/opt/postgresql@*/bin, "
			+ "/usr/local/opt/postgresql@*/bin, PATH, /opt/homebrew/bin or /usr/local/bin";

	/** The commands that install the server binaries. */
	static final String INSTALL = "sudo apt-get install postgresql (Debian/Ubuntu) or brew install postgresql@17 (macOS)";

	private final Path bin;

	/** Finds the binaries; nothing runs until {@link #start()}. */
	public PostgresServer() {
		super("postgres");
		this.bin = requireBinaries();
	}

	/**
	 * Starts the server (again, with its data, after {@link #stop()}) and returns once it
	 * accepts connections.
	 * @return this server
	 */
	public PostgresServer start() {
		startProcess();
		return this;
	}

	/**
	 * Where to connect.
	 * @return the JDBC URL of database {@value #DATABASE}
	 */
	public String jdbcUrl() {
		return "jdbc:postgresql://" + HOST + ":" + port() + "/" + DATABASE;
	}

	/**
	 * The PostgreSQL binaries, or an exception naming the package to install.
	 * @return the directory holding {@code initdb} and {@code postgres}
	 */
	public static Path requireBinaries() {
		return findBinaries(ProgramLocations.system()).orElseThrow(
				() -> new DatabaseNotAvailableException("PostgreSQL server binaries (initdb, postgres) not found in "
						+ BIN_ENV + ", " + SEARCHED + "; install them: " + INSTALL));
	}

	static Optional<Path> findBinaries(ProgramLocations where) {
		String configured = where.env(BIN_ENV);
		if (configured != null) {
			return Optional.of(Path.of(configured)).filter(PostgresServer::holdsServer);
		}
		List<Path> versioned = new ArrayList<>(where.versionedBins("usr/lib/postgresql", "*"));
		for (String homebrew : List.of("opt/homebrew/opt", "usr/local/opt")) {
			versioned.addAll(where.versionedBins(homebrew, "postgresql{,@*}"));
		}
		Optional<Path> installed = versioned.stream().filter(PostgresServer::holdsServer).findFirst();
		if (installed.isPresent()) {
			return installed;
		}
		return where.find("initdb", ProgramLocations.HOMEBREW_BINS)
			.map(Path::getParent)
			.filter(PostgresServer::holdsServer);
	}

	private static boolean holdsServer(Path bin) {
		return Files.isExecutable(bin.resolve("initdb")) && Files.isExecutable(bin.resolve("postgres"));
	}

	@Override
	void initialize(Path dataDir, int port) {
		if (runningAsRoot()) {
			chown(dataDir.getParent(), OS_USER);
		}
		run(asServerUser(this.bin.resolve("initdb").toString(), "-D", dataDir.toString(), "-U", USER, "--auth=trust",
				"-E", "UTF8", "--no-locale", "--no-sync"), dataDir.getParent());
	}

	@Override
	List<String> serverCommand(Path dataDir, int port) {
		return asServerUser(this.bin.resolve("postgres").toString(), "-D", dataDir.toString(), "-p",
				Integer.toString(port), "-k", dataDir.getParent().toString(), "-c", "listen_addresses=" + HOST, "-c",
				"fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "shared_buffers=16MB",
				"-c", "max_connections=60");
	}

	@Override
	String readyLine() {
		return "database system is ready to accept connections";
	}

	/**
	 * SIGINT is PostgreSQL's "fast" shutdown: it ends open sessions instead of waiting.
	 */
	@Override
	void requestFastShutdown(Process process) {
		signal(process, "INT");
	}

	/** setpriv execs the command, so the process this JVM holds is the server itself. */
	private static List<String> asServerUser(String... command) {
		List<String> full = command();
		if (runningAsRoot()) {
			full.addAll(List.of("setpriv", "--reuid=" + OS_USER, "--regid=" + OS_USER, "--init-groups"));
		}
		full.addAll(List.of(command));
		return full;
	}

}
