package io.redeq.test;

import java.time.Duration;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Starts real redis-server processes and talks to them through Lettuce.
 */
class RedisServerIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(15);

	private RedisServer server;

	private RedisClient client;

	@AfterEach
	void cleanUp() {
		if (this.client != null) {
			this.client.shutdown();
		}
		if (this.server != null) {
			this.server.close();
		}
	}

	@Test
	void startsOnAFreeLoopbackPortAndAnswersPingThroughLettuce() {
		this.server = new RedisServer().start();

		assertThat(this.server.isRunning()).isTrue();
		assertThat(this.server.isLocalProcess()).isTrue();
		assertThat(this.server.host()).isEqualTo("127.0.0.1");
		assertThat(this.server.port()).isNotEqualTo(6379).isPositive();
		assertThat(this.server.uri().getPort()).isEqualTo(this.server.port());
		try (StatefulRedisConnection<String, String> connection = connect()) {
			assertThat(connection.sync().ping()).isEqualTo("PONG");
			assertThat(connection.sync().configGet("appendonly")).containsEntry("appendonly", "no");
			assertThat(connection.sync().configGet("save")).containsEntry("save", "");
		}
	}

	@Test
	void stopEndsTheProcessAndClosesThePort() {
		this.server = new RedisServer().start();
		int port = this.server.port();

		this.server.stop();

		assertThat(this.server.isRunning()).isFalse();
		await().atMost(WAIT).until(() -> !TcpPorts.isOpen("127.0.0.1", port));
	}

	@Test
	void restartWithAppendOnlyFileKeepsDataAndPort() {
		this.server = new RedisServer().withAppendOnly().start();
		int port = this.server.port();
		try (StatefulRedisConnection<String, String> connection = connect()) {
			connection.sync().set("job:1", "payload");
		}

		this.server.stop();
		await().atMost(WAIT).until(() -> !TcpPorts.isOpen("127.0.0.1", port));
		this.server.start();

		assertThat(this.server.port()).isEqualTo(port);
		try (StatefulRedisConnection<String, String> connection = connect()) {
			assertThat(connection.sync().get("job:1")).isEqualTo("payload");
		}
	}

	@Test
	void killLikeACrashThenRestartKeepsFsyncedData() {
		this.server = new RedisServer().withArgs("--appendonly", "yes", "--appendfsync", "always").start();
		try (StatefulRedisConnection<String, String> connection = connect()) {
			connection.sync().rpush("queue", "a", "b");
		}

		this.server.kill();
		assertThat(this.server.isRunning()).isFalse();
		this.server.start();

		try (StatefulRedisConnection<String, String> connection = connect()) {
			assertThat(connection.sync().lrange("queue", 0, -1)).containsExactly("a", "b");
		}
	}

	@Test
	void withoutAppendOnlyARestartStartsEmpty() {
		this.server = new RedisServer().start();
		try (StatefulRedisConnection<String, String> connection = connect()) {
			connection.sync().set("k", "v");
		}

		this.server.stop();
		this.server.start();

		try (StatefulRedisConnection<String, String> connection = connect()) {
			assertThat(connection.sync().dbsize()).isZero();
		}
	}

	@Test
	void twoServersGetDifferentPorts() {
		this.server = new RedisServer().start();
		try (RedisServer other = new RedisServer().start()) {
			assertThat(other.port()).isNotEqualTo(this.server.port());
			assertThat(other.call("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void failedStartReportsTheServerOutput() {
		this.server = new RedisServer().withArgs("--no-such-directive", "1");

		assertThatIllegalStateException().isThrownBy(this.server::start)
			.withMessageContaining("redis-server exited")
			.withMessageContaining("no-such-directive");
		assertThat(this.server.isRunning()).isFalse();
	}

	@Test
	void flushAllEmptiesEveryDatabase() {
		this.server = new RedisServer().start();
		try (StatefulRedisConnection<String, String> connection = connect()) {
			connection.sync().set("a", "1");
			connection.sync().select(3);
			connection.sync().set("b", "2");

			this.server.flushAll();

			assertThat(connection.sync().dbsize()).isZero();
			connection.sync().select(0);
			assertThat(connection.sync().dbsize()).isZero();
		}
	}

	private StatefulRedisConnection<String, String> connect() {
		if (this.client == null) {
			this.client = RedisClient.create();
		}
		return this.client.connect(this.server.uri());
	}

}
