package io.redeq.example;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A newcomer's "./mvnw -pl redeq-spring-boot-example -am spring-boot:run" on a machine
 * with a JDK and nothing else on its {@code PATH}: spring-boot:run forks the lifecycle up
 * to {@code test-compile} on every module before it starts the application, and no step
 * on the way may ask for what only the tests start (Redis, PostgreSQL, MariaDB,
 * Chromium). The tests' own path must still reach the prerequisites check.
 *
 * <p>
 * One offline child Maven, launched with {@code java} itself (no shell, so the
 * {@code PATH} can hold {@code java} alone), runs the goal with the application's start
 * skipped, then {@code process-test-classes}, with compilation skipped (the classes are
 * there from this build). The check itself, with what it finds and its one-line message,
 * is TestPrerequisitesTests' in the test support.
 */
class ExampleRunCommandIntegrationTests {

	private static final List<String> MODULES = List.of("redeq-parent", "redeq-test-support", "redeq-core",
			"redeq-spring-boot-starter", "redeq-spring-boot-example");

	@TempDir
	Path work;

	@Test
	void theExamplesRunCommandNeedsAJdkAloneAndTheTestsStillCheckTheirPrerequisites() throws Exception {
		Build build = maven("-Dspring-boot.run.skip=true", "spring-boot:run", "process-test-classes");

		assertThat(build.exitCode()).as(build.output()).isZero();
		for (String module : MODULES) {
			// Maven runs the first goal, with its forked lifecycle, on a module before
			// the second: a check bound up to test-compile would appear before
			// the run goal.
			int run = build.output().indexOf(":run (default-cli) @ " + module + " ");
			int check = build.output().indexOf("(check-test-prerequisites) @ " + module + " ");
			assertThat(run).as(module + " ran spring-boot:run\n" + build.output()).isNotNegative();
			assertThat(check).as(module + " reached the check after spring-boot:run\n" + build.output())
				.isGreaterThan(run);
		}
	}

	private Build maven(String... goals) throws IOException, InterruptedException {
		Path javaHome = Path.of(System.getProperty("java.home"));
		Path onlyJava = Files.createDirectories(this.work.resolve("bin"));
		Files.createSymbolicLink(onlyJava.resolve("java"), javaHome.resolve("bin/java"));
		Path mavenHome = Path.of(requiredProperty("maven.home"));
		Path root = Path.of(requiredProperty("redeq.root"));
		List<String> command = new ArrayList<>(List.of(javaHome.resolve("bin/java").toString(), "-classpath",
				classworlds(mavenHome).toString(), "-Dclassworlds.conf=" + mavenHome.resolve("bin/m2.conf"),
				"-Dmaven.home=" + mavenHome, "-Dmaven.multiModuleProjectDirectory=" + root,
				"org.codehaus.plexus.classworlds.launcher.Launcher"));
		command.addAll(List.of("-o", "-B", "-f", root.resolve("pom.xml").toString(), "-pl", "redeq-spring-boot-example",
				"-am", "-Dmaven.main.skip", "-Dmaven.test.skip=true", "-Dcheckstyle.skip", "-Dspring-javaformat.skip"));
		command.addAll(List.of(goals));
		ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true);
		Map<String, String> env = builder.environment();
		env.keySet().removeIf((name) -> name.startsWith("REDEQ_") || name.startsWith("MAVEN_"));
		env.put("PATH", onlyJava.toString());
		Path log = this.work.resolve("maven.log");
		Process process = builder.redirectOutput(log.toFile()).start();
		if (!process.waitFor(120, TimeUnit.SECONDS)) {
			process.destroyForcibly();
			throw new IllegalStateException(
					"mvn " + String.join(" ", goals) + " did not end within 120 s:\n" + Files.readString(log));
		}
		return new Build(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
	}

	private static Path classworlds(Path mavenHome) throws IOException {
		try (Stream<Path> jars = Files.list(mavenHome.resolve("boot"))) {
			return jars.filter((jar) -> jar.getFileName().toString().matches("plexus-classworlds-.*\\.jar"))
				.findFirst()
				.orElseThrow(() -> new IllegalStateException(
						"No plexus-classworlds jar in " + mavenHome + File.separator + "boot"));
		}
	}

	private static String requiredProperty(String name) {
		String value = System.getProperty(name);
		if (value == null || value.isBlank()) {
			throw new IllegalStateException("System property " + name
					+ " is not set: run this test through Maven (the example's failsafe configuration sets it)");
		}
		return value;
	}

	private record Build(int exitCode, String output) {
	}

}
