package io.redeq.test;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedisTest @RedisTest}: one server per class, injected parameters, a flush before
 * each test. The methods run in order because later ones check what earlier ones left
 * behind.
 */
@RedisTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisExtensionIntegrationTests {

	private final RedisServer serverFromConstructor;

	RedisExtensionIntegrationTests(RedisServer server) {
		this.serverFromConstructor = server;
	}

	@Test
	@Order(1)
	void injectsOneServerWithAClientAndUriForIt(RedisServer server, RedisClient client, RedisURI uri) {
		assertThat(server).isSameAs(this.serverFromConstructor);
		assertThat(server.isRunning()).isTrue();
		assertThat(uri.getPort()).isEqualTo(server.port()).isNotEqualTo(6379);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			assertThat(connection.sync().ping()).isEqualTo("PONG");
			connection.sync().set("left-behind", "by test 1");
		}
	}

	@Test
	@Order(2)
	void flushesBeforeEachTest(RedisClient client) {
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			assertThat(connection.sync().exists("left-behind")).isZero();
		}
	}

	@Test
	@Order(3)
	void aTestMayStopTheServer(RedisServer server) {
		server.stop();
		assertThat(server.isRunning()).isFalse();
	}

	@Test
	@Order(4)
	void theNextTestFindsItRunningAgainOnTheSamePort(RedisServer server) {
		assertThat(server).isSameAs(this.serverFromConstructor);
		assertThat(server.isRunning()).isTrue();
		assertThat(server.call("PING")).isEqualTo("PONG");
	}

	@Nested
	class NestedTests {

		@Test
		void shareTheEnclosingClassServer(RedisServer server) {
			assertThat(server).isSameAs(RedisExtensionIntegrationTests.this.serverFromConstructor);
		}

	}

}
