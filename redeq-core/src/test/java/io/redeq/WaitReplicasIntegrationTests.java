package io.redeq;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code waitReplicas} on a standalone master with one replica: when schedule returns,
 * the replica already holds the job; once the replica is gone, schedule refuses and names
 * how many acknowledged, also when the job is scheduled again and kept. A {@code WAIT}
 * answered on another connection than the one that wrote the job proves nothing, so a
 * schedule whose connection dropped in between is refused.
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
					.isThrownBy(() -> redeq.client()
						.schedule(Job.builder("t").id("late").payload(0).delay(Duration.ofHours(1)).build()))
					.withMessageContaining("acknowledged by 0 of 1 replicas within PT0.3S");
				// Scheduled again as told, the job written by the refused call is kept:
				// that
				// is no acknowledgement either while no replica has it.
				assertThatExceptionOfType(RedeqUnavailableException.class)
					.isThrownBy(() -> redeq.client()
						.schedule(Job.builder("t")
							.id("late")
							.payload(1)
							.delay(Duration.ofHours(1))
							.onDuplicate(Duplicate.KEEP)
							.build()))
					.withMessageContaining("acknowledged by 0 of 1 replicas");
			}
			finally {
				client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
		}
	}

	/**
	 * Lettuce sends a command again after a reconnect when its reply was lost. A WAIT
	 * sent again lands on a new connection that wrote nothing, on a server that may never
	 * have seen the job (here: a new master on the same address), and is answered at once
	 * by any replica: the schedule must not be acknowledged on that answer.
	 */
	@Test
	void aScheduleWhoseConnectionDroppedBeforeItsWaitWasAnsweredIsRefused() {
		try (RedisServer master = new RedisServer().start()) {
			RedisClient client = RedisClient.create(master.uri());
			RedisServer replica = new RedisServer().withArgs("--replicaof", master.host(),
					String.valueOf(master.port()));
			try (replica;
					Redeq redeq = Redeq.builder(client)
						.waitReplicas(1)
						.waitTimeout(Duration.ofSeconds(20))
						.commandTimeout(Duration.ofSeconds(20))
						.build();
					StatefulRedisConnection<String, String> onMaster = client.connect(master.uri())) {
				// No replica yet: the schedule script runs, then its WAIT blocks.
				CompletableFuture<String> scheduled = redeq.client()
					.async()
					.schedule(Job.builder("t").id("lost").payload(1).delay(Duration.ofHours(1)).build());
				await().atMost(Duration.ofSeconds(10))
					.until(() -> onMaster.sync().info("clients").contains("blocked_clients:1"));
				// The master dies with the job, and a new master with a replica takes its
				// address before the WAIT's timeout.
				master.kill();
				master.start();
				replica.start();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> onMaster.sync().info("replication").contains("connected_slaves:1"));
				assertThat(onMaster.sync().keys("*")).as("the new master never saw the job").isEmpty();
				assertThatExceptionOfType(CompletionException.class)
					.isThrownBy(() -> scheduled.orTimeout(40, TimeUnit.SECONDS).join())
					.withCauseInstanceOf(RedeqUnavailableException.class)
					.withMessageContaining("connection");
			}
			finally {
				client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
			}
		}
	}

}
