package io.redeq.test;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A six-node cluster, used through Lettuce's cluster client, including a master failover.
 * One cluster for the class, as forming one takes a few seconds; the tests run in order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterIntegrationTests {

	private static RedisCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = new RedisCluster().start();
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			List<RedisServer> nodes = cluster.nodes();
			cluster.stop();
			assertThat(nodes).noneMatch(RedisServer::isRunning);
		}
	}

	@Test
	@Order(1)
	void formsThreeMastersWithOneReplicaEach() {
		assertThat(cluster.nodes()).hasSize(6).allMatch(RedisServer::isRunning);
		assertThat(cluster.masters()).hasSize(3);
		assertThat(cluster.replicas()).hasSize(3);
		assertThat(cluster.seedUris()).hasSize(6).noneMatch((uri) -> uri.getPort() == 6379);
	}

	@Test
	@Order(2)
	void servesKeysInEverySlotRangeThroughLettuce() {
		withClient((redis) -> {
			for (int i = 0; i < 30; i++) {
				redis.set("key-" + i, "value-" + i);
			}
			for (int i = 0; i < 30; i++) {
				assertThat(redis.get("key-" + i)).isEqualTo("value-" + i);
			}
		});
	}

	@Test
	@Order(3)
	void replicaTakesOverWhenAMasterIsKilled() {
		RedisServer master = writeToOwnerAndReplicate("survivor", "yes");

		master.kill();

		await().atMost(Duration.ofSeconds(60))
			.untilAsserted(() -> assertThat(cluster.masters()).hasSize(3).doesNotContain(master));
		cluster.awaitHealthy(Duration.ofSeconds(60));
		withClient((redis) -> assertThat(redis.get("survivor")).isEqualTo("yes"));

		master.start(); // it comes back as a replica of the node that took over
		await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(cluster.replicas()).contains(master));
		cluster.awaitHealthy(Duration.ofSeconds(60));
	}

	/**
	 * Writes the key on the master that owns its slot, waits for a replica to have it,
	 * returns that master.
	 */
	private static RedisServer writeToOwnerAndReplicate(String key, String value) {
		RedisClusterClient client = RedisClusterClient.create(cluster.seedUris());
		try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
			RedisURI owner = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(key)).getUri();
			RedisCommands<String, String> master = connection.getConnection(owner.getHost(), owner.getPort()).sync();
			master.set(key, value);
			assertThat(master.waitForReplication(1, 5000)).isEqualTo(1);
			return cluster.node(owner.getPort());
		}
		finally {
			client.shutdown();
		}
	}

	private static void withClient(Consumer<RedisAdvancedClusterCommands<String, String>> action) {
		RedisClusterClient client = RedisClusterClient.create(cluster.seedUris());
		try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
			action.accept(connection.sync());
		}
		finally {
			client.shutdown();
		}
	}

}
