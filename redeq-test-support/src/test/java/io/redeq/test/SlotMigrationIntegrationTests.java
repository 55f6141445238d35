package io.redeq.test;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisCommandExecutionException;
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
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A two-master cluster without replicas (joined by hand, as redis-cli wants three
 * masters), one slot left half moved, and a reshard with redis-cli.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SlotMigrationIntegrationTests {

	private static RedisCluster cluster;

	private static RedisClusterClient client;

	@BeforeAll
	static void startCluster() {
		cluster = new RedisCluster().withMasters(2).withReplicasPerMaster(0).start();
		client = RedisClusterClient.create(cluster.seedUris());
	}

	@AfterAll
	static void stopCluster() {
		if (client != null) {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
		if (cluster != null) {
			cluster.close();
		}
	}

	@Test
	@Order(1)
	void formsTwoMastersThatShareTheSlots() {
		assertThat(cluster.nodes()).hasSize(2);
		assertThat(cluster.masters()).hasSize(2);
		assertThat(cluster.replicas()).isEmpty();
		assertThat(cluster.slotsOf(cluster.nodes().get(0))).hasSize(8192).startsWith(0);
		assertThat(cluster.slotsOf(cluster.nodes().get(1))).hasSize(8192).endsWith(16383);
	}

	@Test
	@Order(2)
	void aHalfMovedSlotSplitsItsKeysUntilItIsFinished() {
		int slot = SlotHash.getSlot("{half}");
		RedisServer source = cluster.masterOf(slot);
		RedisServer target = cluster.masters().stream().filter((m) -> m != source).findFirst().orElseThrow();
		try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
			RedisAdvancedClusterCommands<String, String> redis = connection.sync();
			redis.set("{half}:a", "1");
			redis.set("{half}:b", "2");

			SlotMigration migration = cluster.openSlotMigration(slot, target);
			assertThat(migration.isOpen()).isTrue();
			migration.migrate(List.of("{half}:b"));
			assertThat(migration.keysOn(source)).containsExactly("{half}:a");
			assertThat(migration.keysOn(target)).containsExactly("{half}:b");
			// Lettuce follows -ASK for the moved key; a command over both
			// halves is refused.
			assertThat(redis.get("{half}:a")).isEqualTo("1");
			assertThat(redis.get("{half}:b")).isEqualTo("2");
			assertThatExceptionOfType(RedisCommandExecutionException.class)
				.isThrownBy(() -> redis.mget("{half}:a", "{half}:b"))
				.withMessageStartingWith("TRYAGAIN");

			assertThat(migration.finish(false)).isEmpty();
			assertThat(migration.isOpen()).isFalse();
			assertThat(cluster.masterOf(slot)).isEqualTo(target);
			assertThat(migration.keysOn(target)).containsExactlyInAnyOrder("{half}:a", "{half}:b");
			assertThat(redis.mget("{half}:a", "{half}:b")).hasSize(2);
		}
	}

	@Test
	@Order(3)
	void reshardMovesTheLowestSlotsOfTheSourceWithTheirKeys() {
		RedisServer from = cluster.masters().get(0);
		RedisServer to = cluster.masters().get(1);
		int lowest = cluster.slotsOf(from).get(0);
		String key = keyInSlot(lowest);
		try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
			connection.sync().set(key, "moved");
			cluster.reshard(from, to, 100, 1);
			assertThat(cluster.masterOf(lowest)).isEqualTo(to);
			assertThat(to.call("CLUSTER", "COUNTKEYSINSLOT", String.valueOf(lowest))).isEqualTo("1");
			assertThat(connection.sync().get(key)).isEqualTo("moved");
		}
	}

	private static String keyInSlot(int slot) {
		for (int i = 0; i < 10_000_000; i++) {
			if (SlotHash.getSlot("k" + i) == slot) {
				return "k" + i;
			}
		}
		throw new IllegalStateException("No key k<n> found for slot " + slot);
	}

}
