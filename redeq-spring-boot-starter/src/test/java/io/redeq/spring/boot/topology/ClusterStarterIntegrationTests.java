package io.redeq.spring.boot.topology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
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

import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.RedeqClient;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.test.RedisCluster;
import io.redeq.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The starter on a real Redis Cluster (3 masters, 3 replicas), configured only the Spring
 * Boot way: {@code spring.data.redis.cluster.nodes} and Lettuce's topology refresh
 * ({@code spring.data.redis.lettuce.cluster.refresh.*}, without which the client notices
 * a failover later). A listener receives jobs from every master, an ACL user with the
 * documented rules is denied nothing, and a master killed under load loses no job whose
 * schedule returned with {@code redeq.durability.wait-replicas=1}. One cluster for the
 * class (forming one takes about 15 s); the failover runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterStarterIntegrationTests {

	private static RedisCluster cluster;

	private static RedisClient nodes;

	@BeforeAll
	static void startCluster() {
		cluster = new RedisCluster().start();
		nodes = RedisClient.create();
	}

	@AfterAll
	static void stopCluster() {
		if (nodes != null) {
			nodes.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
		if (cluster != null) {
			cluster.close();
		}
	}

	private static ApplicationContextRunner runner() {
		String seeds = cluster.nodes()
			.stream()
			.map((node) -> node.host() + ":" + node.port())
			.collect(Collectors.joining(","));
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
			.withUserConfiguration(Deliveries.class)
			.withPropertyValues("spring.data.redis.cluster.nodes=" + seeds,
					"spring.data.redis.lettuce.cluster.refresh.adaptive=true",
					"spring.data.redis.lettuce.cluster.refresh.period=1s", "spring.data.redis.timeout=3s",
					"redeq.command-timeout=3s", "redeq.migrator.lock-ttl=2s", "redeq.consumer.poll-interval=1s");
	}

	@Test
	@Order(1)
	void aListenerReceivesJobsStoredOnEveryMaster() {
		runner().withPropertyValues("redeq.prefix=spread").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(LettuceConnectionFactory.class).getNativeClient())
				.isInstanceOf(RedisClusterClient.class);
			RedeqClient client = context.getBean(RedeqClient.class);
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < 300; i++) {
				jobs.add(Job.builder("orders").id("order-" + i).payload("p" + i).delay(Duration.ofHours(1)).build());
			}
			client.scheduleAll(jobs);
			// Asked of each master itself: the 16 buckets spread over all three.
			for (RedisServer master : cluster.masters()) {
				try (StatefulRedisConnection<String, String> connection = nodes.connect(master.uri())) {
					assertThat(connection.sync().keys("{spread:*")).as("redeq keys on " + master).isNotEmpty();
				}
			}
			jobs.forEach((job) -> client.reschedule("orders", job.id(), Duration.ofMillis(50)));
			Deliveries deliveries = context.getBean(Deliveries.class);
			await().atMost(Duration.ofSeconds(30)).until(() -> deliveries.byId.size() == 300);
			// A completion may wait a few ms for others of its bucket after
			// its handler ran.
			await().atMost(Duration.ofSeconds(5))
				.until(() -> context.getBean(Redeq.class).admin().stats("orders").pending() == 0);
		});
	}

	/**
	 * The least a redeq user needs on a cluster, for prefix {@code acl}: the standalone
	 * rules plus what Lettuce's topology discovery sends, plus {@code INFO} and
	 * {@code CONFIG GET} for the starter's startup checks. The same line as in
	 * docs/cluster-and-sentinel.md.
	 */
	static final String CLUSTER_USER = "resetkeys ~acl:* ~{acl:* resetchannels &acl:* -@all +hello +auth +ping "
			+ "+evalsha +eval +fcall +function|load +time +wait +hget +hgetall +hset +hsetnx +hmget +hkeys +hscan +hlen +hdel +hexists "
			+ "+hincrby +zadd +zrem +zrange +zrangebyscore +zrevrange +zremrangebyscore +zremrangebyrank +zpopmin "
			+ "+zscore +zmscore +zcard +set +get +del +exists +pexpire +rpush +lpop +blpop +ltrim +publish +subscribe "
			+ "+unsubscribe +cluster|nodes +cluster|myid +client|setname +info +readonly +config|get";

	@Test
	@Order(2)
	void anAclUserWithTheDocumentedRulesIsDeniedNothingOnAnyNode() {
		for (RedisServer node : cluster.nodes()) {
			try (StatefulRedisConnection<String, String> connection = nodes.connect(node.uri())) {
				CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add("SETUSER")
					.add("redeq-app")
					.add("reset")
					.add("on")
					.add(">app-secret");
				for (String rule : CLUSTER_USER.split(" ")) {
					args.add(rule);
				}
				assertThat(connection.sync().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args))
					.isEqualTo("OK");
				connection.sync().aclLogReset();
			}
		}
		runner()
			.withPropertyValues("redeq.prefix=acl", "spring.data.redis.username=redeq-app",
					"spring.data.redis.password=app-secret")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RedeqClient client = context.getBean(RedeqClient.class);
				for (int i = 0; i < 100; i++) {
					client.schedule("orders", "p" + i, Duration.ofMillis(i * 5));
				}
				Deliveries deliveries = context.getBean(Deliveries.class);
				await().atMost(Duration.ofSeconds(20)).until(() -> deliveries.byId.size() == 100);
				// The startup checks run on their own thread; give them time to finish.
				await().atMost(Duration.ofSeconds(10)).until(() -> !startupChecksRunning());
			});
		Map<Integer, List<Map<String, Object>>> denials = new LinkedHashMap<>();
		for (RedisServer node : cluster.nodes()) {
			try (StatefulRedisConnection<String, String> connection = nodes.connect(node.uri())) {
				List<Map<String, Object>> log = connection.sync().aclLog();
				if (!log.isEmpty()) {
					denials.put(node.port(), log);
				}
			}
		}
		assertThat(denials).as("ACL LOG entries per node").isEmpty();
	}

	private static boolean startupChecksRunning() {
		return Thread.getAllStackTraces().keySet().stream().anyMatch((t) -> t.getName().equals("redeq-startup-checks"));
	}

	@Test
	@Order(3)
	void aMasterKilledUnderLoadLosesNoAcknowledgedJob() {
		runner().withPropertyValues(ScheduleLoad.FAILOVER_PROPERTIES).run((context) -> {
			assertThat(context).hasNotFailed();
			Deliveries deliveries = context.getBean(Deliveries.class);
			ScheduleLoad load = new ScheduleLoad(context.getBean(RedeqClient.class), "orders", Duration.ofSeconds(1));
			long failoverMillis;
			int beforeKill;
			try (load) {
				await().atMost(Duration.ofSeconds(30)).until(() -> load.acknowledged().size() >= 500);
				RedisServer victim = cluster.masters().get(0);
				int victimPort = victim.port();
				beforeKill = load.acknowledged().size();
				victim.kill();
				long killedAt = System.nanoTime();
				await().atMost(Duration.ofSeconds(30))
					.until(() -> cluster.masters().size() == 3
							&& cluster.masters().stream().noneMatch((m) -> m.port() == victimPort));
				cluster.awaitHealthy(Duration.ofSeconds(30));
				failoverMillis = (System.nanoTime() - killedAt) / 1_000_000;
				// Back as the new master's replica, so WAIT 1 succeeds on
				// every shard again.
				victim.start();
				cluster.awaitHealthy(Duration.ofSeconds(30));
				int afterFailover = load.acknowledged().size();
				await().atMost(Duration.ofSeconds(30)).until(() -> load.acknowledged().size() >= afterFailover + 300);
			}
			RedeqClient client = context.getBean(RedeqClient.class);
			await().atMost(Duration.ofSeconds(60))
				.untilAsserted(() -> assertThat(deliveries.undelivered(client, load.acknowledged()))
					.as("acknowledged jobs not delivered (first 10, with their state in Redis)")
					.isEmpty());
			System.out.printf(
					"[starter-cluster-failover] acknowledged=%d (before kill %d), refused=%d, delivered=%d, "
							+ "duplicates=%d, run again after their lease expired=%d, failover took %d ms%n",
					load.acknowledged().size(), beforeKill, load.refused(), deliveries.byId.size(),
					deliveries.duplicates(), deliveries.afterLeaseExpiry.get(), failoverMillis);
			assertThat(deliveries.byId.keySet()).containsAll(load.acknowledged());
		});
	}

}
