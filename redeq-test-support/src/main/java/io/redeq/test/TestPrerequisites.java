package io.redeq.test;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The build's check that the programs a module's tests start are installed, run before
 * the tests of each module (the root pom runs it with the programs the module names in
 * its {@code redeq.prerequisites} property). It asks the lookups the test support itself
 * uses, so whatever passes the check is what the tests find; a missing program fails the
 * build with one line that names it and the command that installs it, instead of dozens
 * of failing tests.
 *
 * <pre>
 * java -cp redeq-test-support.jar io.redeq.test.TestPrerequisites redeq-core redis-server redis-cli
 * </pre>
 */
public final class TestPrerequisites {

	private TestPrerequisites() {
	}

	/**
	 * Checks the programs and exits: 0 when all are there, 1 after printing the one line
	 * that says what is missing.
	 * @param args the module's name, then the programs its tests need (see
	 * {@link Program})
	 */
	public static void main(String[] args) {
		if (args.length == 0) {
			throw new IllegalArgumentException("Usage: TestPrerequisites <module> [" + Program.names() + "]...");
		}
		Optional<String> missing = check(args[0], Arrays.asList(args).subList(1, args.length),
				ProgramLocations.system());
		if (missing.isPresent()) {
			System.out.println(missing.get());
			System.exit(1);
		}
	}

	/**
	 * What is missing of the programs {@code module}'s tests need, as the one line the
	 * build fails with, or empty when everything is installed.
	 */
	static Optional<String> check(String module, List<String> needs, ProgramLocations where) {
		List<Program> missing = needs.stream()
			.filter((need) -> !need.isBlank())
			.map(Program::named)
			.distinct()
			.filter((program) -> !program.installed(where))
			.toList();
		if (missing.isEmpty()) {
			return Optional.empty();
		}
		return Optional.of("The tests of " + module + " need "
				+ missing.stream().map((program) -> program.description).collect(Collectors.joining(", "))
				+ ", not found on PATH nor where Debian or Homebrew install them; install with: sudo apt-get install "
				+ packages(missing, (program) -> program.aptPackages) + " (Debian/Ubuntu) or brew install "
				+ packages(missing, (program) -> program.brewPackages)
				+ " (macOS). Or build without running tests: -DskipTests");
	}

	private static String packages(List<Program> programs, Function<Program, String> packages) {
		Set<String> names = new LinkedHashSet<>();
		programs.forEach((program) -> names.addAll(List.of(packages.apply(program).split(" "))));
		return String.join(" ", names);
	}

	/** A program (or set of programs) some module's tests start. */
	enum Program {

		REDIS_SERVER("redis-server", "redis-server", "redis-server", "redis",
				(where) -> RedisBinaries.findRedisServer(where).isPresent()),

		REDIS_CLI("redis-cli", "redis-cli", "redis-tools", "redis",
				(where) -> RedisBinaries.findRedisCli(where).isPresent()),

		POSTGRESQL("postgresql", "the PostgreSQL server (initdb, postgres)", "postgresql", "postgresql@17",
				(where) -> PostgresServer.findBinaries(where).isPresent()),

		MARIADB("mariadb", "the MariaDB server (mariadbd, mariadb-install-db)", "mariadb-server", "mariadb",
				(where) -> MariaDbServer.find("mariadbd", where).isPresent()
						&& MariaDbServer.find("mariadb-install-db", where).isPresent()),

		RABBITMQ("rabbitmq-server", "the RabbitMQ server (rabbitmq-server, epmd)", "rabbitmq-server", "rabbitmq",
				(where) -> RabbitMqServer.findServer(where).isPresent() && RabbitMqServer.findEpmd(where).isPresent()),

		CHROMIUM("chromium", "Chromium and chromedriver", "chromium chromium-driver", "google-chrome chromedriver",
				(where) -> ChromiumBinaries.findBrowser(where).isPresent()
						&& ChromiumBinaries.findDriver(where).isPresent());

		private final String name;

		private final String description;

		private final String aptPackages;

		private final String brewPackages;

		private final Predicate<ProgramLocations> lookup;

		Program(String name, String description, String aptPackages, String brewPackages,
				Predicate<ProgramLocations> lookup) {
			this.name = name;
			this.description = description;
			this.aptPackages = aptPackages;
			this.brewPackages = brewPackages;
			this.lookup = lookup;
		}

		boolean installed(ProgramLocations where) {
			try {
				return this.lookup.test(where);
			}
			catch (RedisNotAvailableException ex) {
				return false; // REDEQ_REDIS_SERVER names no executable
			}
		}

		static Program named(String name) {
			return Arrays.stream(values())
				.filter((program) -> program.name.equals(name))
				.findFirst()
				.orElseThrow(() -> new IllegalArgumentException(
						"Unknown test prerequisite '" + name + "'; known: " + names()));
		}

		static String names() {
			return Arrays.stream(values()).map((program) -> program.name).collect(Collectors.joining(", "));
		}

	}

}
