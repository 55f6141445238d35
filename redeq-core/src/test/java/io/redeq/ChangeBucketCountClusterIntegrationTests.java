package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.ClusterClients;
import io.redeq.test.RedisCluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedeqAdmin#changeBucketCount(int)} on a three-master Redis Cluster: a job's old
 * and new buckets lie on different masters, so each move is two scripts on two slots;
 * every job and recurring definition is found in the new layout afterwards, and the
 * change is counted in the layout generation. A running instance that finds a change
 * recorded gives its buckets back until the layout is its own again.
 */
class ChangeBucketCountClusterIntegrationTests {

	private static final int JOBS = 300;

	private static final int RECURRING = 20;

	private static ClusterClients clients;

	private static RedisClusterClient client;

	@BeforeAll
	static void startCluster() {
		clients = new ClusterClients(new RedisCluster().start());
		client = clients.createWithoutRefresh();
	}

	@AfterAll
	static void stopCluster() {
		if (clients != null) {
			clients.close();
		}
	}

	@Test
	void everyJobAndRecurringDefinitionCrossesToItsNewMaster() {
		String prefix = "grown";
		try (Redeq first = Redeq.builder(client).prefix(prefix).migratorEnabled(false).build()) {
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < JOBS; i++) {
				jobs.add(Job.builder("later").id("d" + i).payload(i).delay(Duration.ofHours(1)).build());
			}
			first.client().scheduleAll(jobs);
			for (int i = 0; i < RECURRING; i++) {
				first.client()
					.scheduleRecurring(Recurring.builder("tick").id("t" + i).every(Duration.ofHours(1)).build());
			}
		}
		assertThat(crossingMasters(prefix, 16, 64)).as("jobs whose new bucket is on another master")
			.isGreaterThan(JOBS / 4);

		long moved;
		try (Redeq admin = Redeq.builder(client).prefix(prefix).autoStartup(false).build()) {
			moved = admin.admin().changeBucketCount(64);
		}

		assertThat(moved).isGreaterThan(JOBS / 2);
		try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
			assertThat(connection.sync().hget(prefix + ":meta", "layout-generation")).isEqualTo("1");
			assertThat(connection.sync().hget(prefix + ":meta", "buckets-changing-to")).isNull();
		}
		try (Redeq after = Redeq.builder(client).prefix(prefix).migratorEnabled(false).build()) {
			assertThat(after.options().buckets()).isEqualTo(64);
			assertThat(after.admin().stats("later").delayed()).isEqualTo(JOBS);
			for (int i = 0; i < JOBS; i++) {
				assertThat(after.client().find("later", "d" + i)).as("d" + i).isPresent();
			}
			assertThat(after.admin().recurring()).hasSize(RECURRING);
			for (int i = 0; i < RECURRING; i++) {
				assertThat(after.client().cancelRecurring("tick", "t" + i)).as("t" + i).isTrue();
			}
		}
	}

	@Test
	void anInstanceThatMissedTheStartOfAChangeGivesItsBucketsBack() {
		String prefix = "missed";
		try (Redeq running = Redeq.builder(client).prefix(prefix).lockTtl(Duration.ofMillis(900)).build();
				StatefulRedisClusterConnection<String, String> connection = client.connect()) {
			await().atMost(Duration.ofSeconds(10)).until(() -> running.ownedBuckets().length == 16);
			// What a change that began while this instance's heartbeat had lapsed
			// records.
			connection.sync().hset(prefix + ":meta", "buckets-changing-to", "32");
			await().atMost(Duration.ofSeconds(10)).until(() -> running.ownedBuckets().length == 0);
			connection.sync().hdel(prefix + ":meta", "buckets-changing-to");
			await().atMost(Duration.ofSeconds(10)).until(() -> running.ownedBuckets().length == 16);
		}
	}

	/** How many of the jobs move to a bucket served by another master. */
	private static long crossingMasters(String prefix, int from, int to) {
		KeySpace before = new KeySpace(prefix, from);
		KeySpace after = new KeySpace(prefix, to);
		Set<String> crossing = new HashSet<>();
		for (int i = 0; i < JOBS; i++) {
			String jobKey = KeySpace.jobKey("later", "d" + i);
			String oldMaster = client.getPartitions()
				.getMasterBySlot(SlotHash.getSlot(before.tag(before.bucketOf(jobKey))))
				.getNodeId();
			String newMaster = client.getPartitions()
				.getMasterBySlot(SlotHash.getSlot(after.tag(after.bucketOf(jobKey))))
				.getNodeId();
			if (!oldMaster.equals(newMaster)) {
				crossing.add(jobKey);
			}
		}
		return crossing.size();
	}

}
