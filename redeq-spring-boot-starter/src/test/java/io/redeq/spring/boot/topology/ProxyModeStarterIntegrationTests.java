package io.redeq.spring.boot.topology;

import java.time.Duration;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.Redeq;
import io.redeq.RedeqClient;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code redeq.redis.proxy-mode=true} through the starter, as the ACL user that
 * docs/proxy-mode.md gives (no channel, no pub/sub or blocking command) plus {@code INFO}
 * and {@code CONFIG GET} for the starter's startup checks: a listener receives every job
 * and Redis denied nothing.
 */
@RedisTest
class ProxyModeStarterIntegrationTests {

	/** The line of docs/proxy-mode.md for prefix {@code shop}, and the startup checks. */
	static final String USER = "resetkeys ~shop:* ~{shop:* resetchannels -@all +hello +auth +ping +evalsha +eval "
			+ "+time +wait +hget +hgetall +hset +hsetnx +hmget +hkeys +hscan +hlen +hdel +hexists +hincrby +zadd "
			+ "+zrem +zrange +zrangebyscore +zrevrange +zremrangebyscore +zremrangebyrank +zpopmin +zscore +zmscore +zcard "
			+ "+set +get +del +exists +pexpire +rpush +lpop +ltrim +info +config|get";

	@Test
	void aListenerReceivesEveryJobAndRedisDeniesNothing(RedisServer server, RedisClient admin) {
		try (StatefulRedisConnection<String, String> connection = admin.connect()) {
			CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add("SETUSER")
				.add("proxied")
				.add("reset")
				.add("on")
				.add(">proxy-secret");
			for (String rule : USER.split(" ")) {
				args.add(rule);
			}
			assertThat(connection.sync().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args))
				.isEqualTo("OK");
			connection.sync().aclLogReset();
		}
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
			.withUserConfiguration(Deliveries.class)
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"spring.data.redis.username=proxied", "spring.data.redis.password=proxy-secret",
					"redeq.prefix=shop", "redeq.redis.proxy-mode=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(Redeq.class).options().proxyMode()).isTrue();
				RedeqClient client = context.getBean(RedeqClient.class);
				for (int i = 0; i < 50; i++) {
					client.schedule("orders", "p" + i, Duration.ofMillis(i * 10));
				}
				Deliveries deliveries = context.getBean(Deliveries.class);
				await().atMost(Duration.ofSeconds(20)).until(() -> deliveries.byId.size() == 50);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> Thread.getAllStackTraces()
						.keySet()
						.stream()
						.noneMatch((thread) -> thread.getName().equals("redeq-startup-checks")));
			});
		try (StatefulRedisConnection<String, String> connection = admin.connect()) {
			assertThat(connection.sync().aclLog()).as("ACL LOG").isEmpty();
		}
	}

}
