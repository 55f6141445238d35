package io.redeq.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The build's prerequisites check against a made-up machine: an empty {@code PATH} and a
 * root directory holding only what each test installs there, laid out as Debian or
 * Homebrew lays it out. The check asks the test support's own lookups, so these are also
 * the places the tests find their servers in.
 */
class TestPrerequisitesTests {

	@TempDir
	Path root;

	@TempDir
	Path emptyPath;

	@Test
	void aMachineWithNothingFailsTheExamplesTestsWithOneLineAndTheInstallCommands() {
		String line = check("redeq-spring-boot-example", "redis-server", "chromium").orElseThrow();

		assertThat(line).doesNotContain("\n")
			.startsWith(
					"The tests of redeq-spring-boot-example need redis-server, Chromium and chromedriver, not found")
			.contains("sudo apt-get install redis-server chromium chromium-driver (Debian/Ubuntu)")
			.contains("brew install redis google-chrome chromedriver (macOS)")
			.contains("-DskipTests");
	}

	@Test
	void eachModuleNeedsOnlyWhatItsTestsStart() throws IOException {
		install("usr/bin/redis-server", "usr/bin/redis-cli");

		assertThat(check("redeq-core", "redis-server", "redis-cli")).isEmpty();
		assertThat(check("redeq-spring-boot-starter", "redis-server", "redis-cli", "postgresql", "mariadb"))
			.hasValueSatisfying((line) -> assertThat(line).contains(
					"need the PostgreSQL server (initdb, postgres), the MariaDB server (mariadbd, mariadb-install-db), not found")
				.contains("sudo apt-get install postgresql mariadb-server (Debian/Ubuntu)")
				.contains("brew install postgresql@17 mariadb (macOS)"));
	}

	@Test
	void findsDebiansServers() throws IOException {
		install("usr/bin/redis-server", "usr/bin/redis-cli", "usr/lib/postgresql/15/bin/initdb",
				"usr/lib/postgresql/15/bin/postgres", "usr/lib/postgresql/17/bin/initdb",
				"usr/lib/postgresql/17/bin/postgres", "usr/sbin/mariadbd", "usr/bin/mariadb-install-db",
				"usr/bin/chromium", "usr/bin/chromedriver");

		assertThat(check("all", "redis-server", "redis-cli", "postgresql", "mariadb", "chromium")).isEmpty();
		assertThat(PostgresServer.findBinaries(where())).contains(this.root.resolve("usr/lib/postgresql/17/bin"));
	}

	@Test
	void findsHomebrewsServersOffThePath() throws IOException {
		install("opt/homebrew/bin/redis-server", "opt/homebrew/bin/redis-cli",
				"opt/homebrew/opt/postgresql@16/bin/initdb", "opt/homebrew/opt/postgresql@16/bin/postgres",
				"opt/homebrew/bin/mariadbd", "opt/homebrew/bin/mariadb-install-db",
				"Applications/Chromium.app/Contents/MacOS/Chromium", "opt/homebrew/bin/chromedriver");

		assertThat(check("all", "redis-server", "redis-cli", "postgresql", "mariadb", "chromium")).isEmpty();
		assertThat(PostgresServer.findBinaries(where()))
			.contains(this.root.resolve("opt/homebrew/opt/postgresql@16/bin"));
		assertThat(ChromiumBinaries.findBrowser(where()))
			.contains(this.root.resolve("Applications/Chromium.app/Contents/MacOS/Chromium"));
	}

	@Test
	void findsDebiansRabbitMqScriptNotTheWrapperThatSwitchesUser() throws IOException {
		install("usr/sbin/rabbitmq-server", "usr/lib/rabbitmq/bin/rabbitmq-server", "usr/bin/epmd");
		ProgramLocations where = new ProgramLocations(Map.of("PATH", this.root.resolve("usr/sbin").toString()),
				this.root);

		assertThat(RabbitMqServer.findServer(where))
			.contains(this.root.resolve("usr/lib/rabbitmq/bin/rabbitmq-server"));
		assertThat(check("redeq-spring-boot-starter", "rabbitmq-server")).isEmpty();
	}

	@Test
	void rabbitMqWithoutEpmdIsMissingAndNamesItsPackage() throws IOException {
		install("opt/homebrew/sbin/rabbitmq-server");

		assertThat(check("redeq-spring-boot-starter", "rabbitmq-server")).hasValueSatisfying(
				(line) -> assertThat(line).contains("need the RabbitMQ server (rabbitmq-server, epmd), not found")
					.contains("sudo apt-get install rabbitmq-server (Debian/Ubuntu)")
					.contains("brew install rabbitmq (macOS)"));
		install("opt/homebrew/bin/epmd");
		assertThat(check("redeq-spring-boot-starter", "rabbitmq-server")).isEmpty();
	}

	@Test
	void aBrowserWithoutItsDriverIsMissing() throws IOException {
		install("usr/bin/chromium");

		assertThat(check("redeq-spring-boot-example", "chromium")).isPresent();
	}

	@Test
	void programsOnThePathComeFirst() throws IOException {
		install("usr/bin/redis-server", "elsewhere/redis-server");
		ProgramLocations where = new ProgramLocations(Map.of("PATH", this.root.resolve("elsewhere").toString()),
				this.root);

		assertThat(RedisBinaries.findRedisServer(where)).contains(this.root.resolve("elsewhere/redis-server"));
	}

	@Test
	void anUnknownPrerequisiteIsNamed() {
		assertThatIllegalArgumentException().isThrownBy(() -> check("redeq-core", "redis"))
			.withMessageContaining("'redis'")
			.withMessageContaining("redis-server, redis-cli, postgresql, mariadb, rabbitmq-server, chromium");
	}

	private Optional<String> check(String module, String... needs) {
		return TestPrerequisites.check(module, List.of(needs), where());
	}

	private ProgramLocations where() {
		return new ProgramLocations(Map.of("PATH", this.emptyPath.toString()), this.root);
	}

	private void install(String... programs) throws IOException {
		for (String program : programs) {
			Path file = this.root.resolve(program);
			Files.createDirectories(file.getParent());
			Files.writeString(file, "#!/bin/sh\n");
			assertThat(file.toFile().setExecutable(true)).isTrue();
		}
	}

}
