package io.redeq.spring.boot.autoconfigure;

import java.time.Duration;

import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The startup checks of Redis settings that lose jobs, against real redis-servers.
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class RedisSafetyChecksIntegrationTests {

	private static final String EVICTION = "Redis maxmemory-policy is";

	private static final String PERSISTENCE = "Redis persistence is off";

	private final RedisServer server;

	RedisSafetyChecksIntegrationTests(RedisServer server) {
		this.server = server;
	}

	private static ApplicationContextRunner runner(RedisServer server) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port());
	}

	@Test
	void warnsOnceWithTheFixWhenRedisPersistsNothing(CapturedOutput output) {
		// The test server runs with --save "" and --appendonly no.
		runner(this.server).run((context) -> {
			await().atMost(Duration.ofSeconds(10)).until(() -> output.getOut().contains(PERSISTENCE));
			assertThat(output.getOut()).contains("WARN").contains("appendonly yes").doesNotContain(EVICTION);
			context.publishEvent(new org.springframework.context.event.ContextRefreshedEvent(context));
		});
		assertThat(output.getOut().split(PERSISTENCE, -1)).as("logged once").hasSize(2);
	}

	@Test
	void warnsWhenRedisMayEvictJobs(CapturedOutput output) {
		try (RedisServer evicting = new RedisServer()
			.withArgs("--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru", "--appendonly", "yes")
			.start()) {
			runner(evicting).run((context) -> {
				await().atMost(Duration.ofSeconds(10)).until(() -> output.getOut().contains(EVICTION));
				assertThat(output.getOut()).contains("[allkeys-lru]")
					.contains("maxmemory-policy noeviction")
					.doesNotContain(PERSISTENCE);
			});
		}
	}

	@Test
	void skipsSilentlyWhenTheAclForbidsInfoAndConfig(RedisClient lettuce, CapturedOutput output) {
		try (StatefulRedisConnection<String, String> connection = lettuce.connect()) {
			connection.sync()
				.aclSetuser("limited",
						AclSetuserArgs.Builder.on()
							.addPassword("secret")
							.allKeys()
							.allChannels()
							.allCommands()
							.removeCommand(CommandType.CONFIG)
							.removeCommand(CommandType.INFO));
		}
		runner(this.server)
			.withPropertyValues("spring.data.redis.username=limited", "spring.data.redis.password=secret")
			.run((context) -> {
				await().atMost(Duration.ofSeconds(10))
					.until(() -> output.getOut().contains("Skipped the persistence check"));
				assertThat(output.getOut()).contains("Skipped the maxmemory-policy check")
					.doesNotContain(EVICTION)
					.doesNotContain(PERSISTENCE);
			});
	}

}
