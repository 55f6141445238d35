package io.redeq;

import java.time.Duration;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import io.redeq.redis.KeySpace;
import io.redeq.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code waitReplicas} on a standalone master with one replica: when schedule returns,
 * the replica already holds the job; once the replica is gone, schedule refuses and names
 * how many acknowledged.
 */
class WaitReplicasIntegrationTests {

	@Test
	void scheduleReturnsOnceTheReplicaHasTheJobAndRefusesWithoutIt() {
		try (RedisServer master = new RedisServer().start()) {
			RedisServer replica = new RedisServer()
				.withArgs("--replicaof", master.host(), String.valueOf(master.port()))
				.start();
			RedisClient client = RedisClient.create(master.uri());
			try (replica;
					Redeq redeq = Redeq.builder(client).waitReplicas(1).waitTimeout(Duration.ofMillis(300)).build();
					StatefulRedisConnection<String, String> onReplica = client.connect(replica.uri())) {
				await().atMost(Duration.ofSeconds(10))
					.until(() -> onReplica.sync().info("replication").contains("master_link_status:up"));
				KeySpace keys = new KeySpace("redeq", 16);
				for (int i = 0; i < 50; i++) {
					String id = redeq.client()
						.schedule(Job.builder("t").id("job-" + i).payload(i).delay(Duration.ofHours(1)).build());
					String jobKey = KeySpace.jobKey("t", id);
					// Read from the replica right after schedule returned: WAIT made sure
					// it is there.
					assertThat(onReplica.sync().hget(keys.tag(keys.bucketOf(jobKey)) + ":payload", jobKey)).as(id)
						.isNotNull();
				}
				replica.stop();
				assertThatExceptionOfType(RedeqUnavailableException.class)
					.isThrownBy(() -> redeq.client().schedule("t", "late", Duration.ofHours(1)))
					.withMessageContaining("acknowledged by 0 of 1 replicas within PT0.3S");
			}
			finally {
				client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
		}
	}

}
