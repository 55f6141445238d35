package io.redeq.spring.boot.topology;

import java.time.Duration;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.redeq.RedeqClient;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.test.RedisSentinel;
import io.redeq.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The starter through Redis Sentinel (a master, a replica, three Sentinels), configured
 * only with {@code spring.data.redis.sentinel.master} and
 * {@code spring.data.redis.sentinel.nodes}: a listener receives jobs, and when the master
 * is killed under load and Sentinel promotes the replica, no job whose schedule returned
 * with {@code redeq.durability.wait-replicas=1} is lost. Once the replica is promoted,
 * the new master has no replica until the old one comes back as its replica: until then
 * schedule refuses (its caller is told), rather than acknowledge a job only one server
 * holds.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SentinelStarterIntegrationTests {

	private static RedisSentinel sentinel;

	@BeforeAll
	static void startSentinel() {
		sentinel = new RedisSentinel().start();
	}

	@AfterAll
	static void stopSentinel() {
		if (sentinel != null) {
			sentinel.close();
		}
	}

	private static ApplicationContextRunner runner() {
		String sentinels = sentinel.sentinels()
			.stream()
			.map((node) -> node.host() + ":" + node.port())
			.collect(Collectors.joining(","));
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
			.withUserConfiguration(Deliveries.class)
			.withPropertyValues("spring.data.redis.sentinel.master=" + RedisSentinel.MASTER_NAME,
					"spring.data.redis.sentinel.nodes=" + sentinels, "spring.data.redis.timeout=3s",
					"redeq.command-timeout=3s", "redeq.migrator.lock-ttl=2s", "redeq.consumer.poll-interval=1s");
	}

	@Test
	@Order(1)
	void aListenerReceivesJobsThroughSentinel() {
		runner().withPropertyValues("redeq.prefix=plain").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(LettuceConnectionFactory.class).getSentinelConfiguration()).isNotNull();
			RedeqClient client = context.getBean(RedeqClient.class);
			for (int i = 0; i < 100; i++) {
				client.schedule("orders", "p" + i, Duration.ofMillis(i * 5));
			}
			Deliveries deliveries = context.getBean(Deliveries.class);
			await().atMost(Duration.ofSeconds(20)).until(() -> deliveries.byId.size() == 100);
		});
	}

	@Test
	@Order(2)
	void aMasterKilledUnderLoadLosesNoAcknowledgedJob() {
		runner().withPropertyValues(ScheduleLoad.FAILOVER_PROPERTIES).run((context) -> {
			assertThat(context).hasNotFailed();
			Deliveries deliveries = context.getBean(Deliveries.class);
			ScheduleLoad load = new ScheduleLoad(context.getBean(RedeqClient.class), "orders", Duration.ofSeconds(1));
			long failoverMillis;
			int beforeKill;
			try (load) {
				await().atMost(Duration.ofSeconds(30)).until(() -> load.acknowledged().size() >= 500);
				RedisServer victim = sentinel.master();
				int victimPort = victim.port();
				beforeKill = load.acknowledged().size();
				victim.kill();
				long killedAt = System.nanoTime();
				sentinel.awaitFailover(victimPort, Duration.ofSeconds(30));
				failoverMillis = (System.nanoTime() - killedAt) / 1_000_000;
				// The old master comes back as the new master's replica (what
				// Sentinel does on its own, but in TILT mode only 30 s later on a
				// loaded machine): WAIT 1 succeeds again and schedule acknowledges
				// again. Sentinel cannot promote it before it holds the jobs.
				sentinel.restartAsReplica(victim, Duration.ofSeconds(30));
				int afterFailover = load.acknowledged().size();
				await().atMost(Duration.ofSeconds(40)).until(() -> load.acknowledged().size() >= afterFailover + 300);
			}
			RedeqClient client = context.getBean(RedeqClient.class);
			await().atMost(Duration.ofSeconds(40))
				.untilAsserted(() -> assertThat(deliveries.undelivered(client, load.acknowledged()))
					.as(() -> "acknowledged jobs not delivered (first 10, with their state in Redis); servers:"
							+ sentinel.describe())
					.isEmpty());
			System.out.printf(
					"[starter-sentinel-failover] acknowledged=%d (before kill %d), refused=%d, delivered=%d, "
							+ "duplicates=%d, run again after their lease expired=%d, failover took %d ms%n",
					load.acknowledged().size(), beforeKill, load.refused(), deliveries.byId.size(),
					deliveries.duplicates(), deliveries.afterLeaseExpiry.get(), failoverMillis);
			assertThat(deliveries.byId.keySet()).containsAll(load.acknowledged());
		});
	}

}
