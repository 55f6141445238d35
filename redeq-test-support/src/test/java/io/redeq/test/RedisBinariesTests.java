package io.redeq.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Discovery of the redis binaries, without starting anything.
 */
class RedisBinariesTests {

	@Test
	void findsNothingOnAnEmptyPathAndAnEmptyRoot(@TempDir Path emptyDir) {
		assertThat(RedisBinaries.findRedisServer(where(Map.of("PATH", emptyDir.toString()), emptyDir))).isEmpty();
		assertThat(RedisBinaries.findRedisServer(where(Map.of(), emptyDir))).isEmpty();
	}

	@Test
	void findsHomebrewsRedisWhenThePathLacksIt(@TempDir Path root, @TempDir Path emptyDir) throws Exception {
		Files.createDirectories(root.resolve("opt/homebrew/bin"));
		Path server = executable(root.resolve("opt/homebrew/bin/redis-server"));
		Path cli = executable(root.resolve("opt/homebrew/bin/redis-cli"));

		ProgramLocations where = where(Map.of("PATH", emptyDir.toString()), root);

		assertThat(RedisBinaries.findRedisServer(where)).contains(server);
		assertThat(RedisBinaries.findRedisCli(where)).contains(cli);
	}

	@Test
	void findsAnExecutableOnPath(@TempDir Path dir) throws Exception {
		Path server = executable(dir.resolve("redis-server"));
		Path cli = executable(dir.resolve("redis-cli"));

		Map<String, String> env = Map.of("PATH", "/nonexistent:" + dir);

		assertThat(RedisBinaries.findRedisServer(where(env, dir))).contains(server);
		assertThat(RedisBinaries.findRedisCli(where(env, dir))).contains(cli);
	}

	@Test
	void environmentVariableWinsAndBringsItsOwnCli(@TempDir Path dir) throws Exception {
		Path custom = executable(dir.resolve("redis-server"));
		Path cli = executable(dir.resolve("redis-cli"));

		Map<String, String> env = Map.of(RedisBinaries.SERVER_ENV, custom.toString(), "PATH", "/usr/bin:/bin");

		assertThat(RedisBinaries.findRedisServer(where(env, dir))).contains(custom);
		assertThat(RedisBinaries.findRedisCli(where(env, dir))).contains(cli);
	}

	@Test
	void environmentVariableNamingNoBinaryFailsWithInstallHint(@TempDir Path dir) {
		Map<String, String> env = Map.of(RedisBinaries.SERVER_ENV, dir.resolve("missing").toString());

		assertThatExceptionOfType(RedisNotAvailableException.class)
			.isThrownBy(() -> RedisBinaries.findRedisServer(where(env, dir)))
			.withMessageContaining(RedisBinaries.SERVER_ENV)
			.withMessageContaining("sudo apt-get install redis-server")
			.withMessageContaining("brew install redis");
	}

	@Test
	void freePortsAreNeverTheDefaultRedisPort() {
		for (int i = 0; i < 20; i++) {
			assertThat(TcpPorts.freePort()).isNotEqualTo(6379).isBetween(1024, 65535);
		}
	}

	private static ProgramLocations where(Map<String, String> env, Path root) {
		return new ProgramLocations(env, root);
	}

	private static Path executable(Path path) throws Exception {
		Files.writeString(path, "#!/bin/sh\n");
		assertThat(path.toFile().setExecutable(true)).isTrue();
		return path;
	}

}
