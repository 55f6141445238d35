package io.redeq.test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The fault proxy against a real redis-server and a Lettuce client: what a lost reply
 * does to a command (it ran; Lettuce sends it again after reconnecting unless it was
 * cancelled), which the engine tests build on.
 */
class FaultProxyIntegrationTests {

	private RedisServer server;

	private FaultProxy proxy;

	private RedisClient direct;

	private RedisClient proxied;

	@BeforeEach
	void start() {
		this.server = new RedisServer().start();
		this.proxy = FaultProxy.to(this.server);
		this.direct = RedisClient.create(this.server.uri());
		this.proxied = RedisClient.create(this.proxy.uri());
	}

	@AfterEach
	void stop() {
		this.proxied.shutdown();
		this.direct.shutdown();
		this.proxy.close();
		this.server.close();
	}

	@Test
	void forwardsCommandsAndRepliesOfEveryType() {
		try (StatefulRedisConnection<String, String> connection = this.proxied.connect()) {
			assertThat(connection.sync().set("k", "v")).isEqualTo("OK");
			assertThat(connection.sync().hset("h", "f", "x\r\ny")).isTrue();
			// A RESP3 map.
			assertThat(connection.sync().hgetall("h")).containsEntry("f", "x\r\ny");
			assertThat(connection.sync().get("missing")).isNull();
			assertThat(connection.sync().zadd("z", 1.5, "m")).isOne();
			// A RESP3 double.
			assertThat(connection.sync().zscore("z", "m")).isEqualTo(1.5);
		}
		assertThat(this.proxy.connectionsAccepted()).isOne();
	}

	@Test
	void aLostReplyLeavesTheCommandRunAndLettuceRunsItAgainAfterReconnecting() throws Exception {
		try (StatefulRedisConnection<String, String> connection = this.proxied.connect()) {
			FaultProxy.Fault fault = this.proxy.loseReplyTo("INCR", "lost-counter");
			connection.setAutoFlushCommands(false);
			RedisAsyncCommands<String, String> async = connection.async();
			RedisFuture<String> before = async.set("before", "x");
			RedisFuture<Long> lost = async.incr("lost-counter");
			// One write: the replies may arrive in one read too.
			connection.flushCommands();
			connection.setAutoFlushCommands(true);

			assertThat(before.get(5, TimeUnit.SECONDS)).isEqualTo("OK");
			assertThat(lost.get(10, TimeUnit.SECONDS)).as("the reply of the command Lettuce sent again").isEqualTo(2);
			assertThat(fault.happened()).isTrue();
			assertThat(fault.command()).contains("lost-counter");
			assertThat(this.proxy.connectionsAccepted()).isEqualTo(2);
		}
		try (StatefulRedisConnection<String, String> check = this.direct.connect()) {
			assertThat(check.sync().get("lost-counter")).as("runs of the command in Redis").isEqualTo("2");
		}
	}

	@Test
	void aHeldReplyTimesTheCommandOutAndACancelledCommandIsNotSentAgain() throws Exception {
		try (StatefulRedisConnection<String, String> connection = this.proxied.connect()) {
			connection.setTimeout(Duration.ofMillis(500)); // sync calls cancel on timeout
			FaultProxy.Fault fault = this.proxy.holdReplyTo(Duration.ofSeconds(1), "INCR", "held-counter");
			assertThatExceptionOfType(RedisCommandTimeoutException.class)
				.isThrownBy(() -> connection.sync().incr("held-counter"));
			assertThat(fault.awaitHappened(Duration.ofSeconds(10))).isTrue();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(connection.sync().get("held-counter")).isEqualTo("1"));
			assertThat(this.proxy.connectionsAccepted()).isEqualTo(2);
		}
	}

}
