package io.redeq.spring.internal.journal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import io.lettuce.core.cluster.SlotHash;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.Job;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.internal.redis.KeySpace;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqJournalAutoConfiguration;
import io.redeq.test.PostgresServer;
import io.redeq.test.RedisCluster;
import io.redeq.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The journal on a Redis Cluster of three masters: one master loses its data (flushed)
 * while the other two keep theirs, and the journal notices it and sends back the jobs of
 * that master's buckets, and only those.
 */
class JournalClusterIntegrationTests {

	private static RedisCluster cluster;

	private static PostgresServer postgres;

	@BeforeAll
	static void start() {
		cluster = new RedisCluster().withReplicasPerMaster(0).start();
		postgres = new PostgresServer().start();
	}

	@AfterAll
	static void stop() {
		if (cluster != null) {
			cluster.close();
		}
		if (postgres != null) {
			postgres.close();
		}
	}

	@Test
	void theLossOfOneMastersDataIsNoticedAndItsJobsRecovered() {
		String seeds = cluster.nodes()
			.stream()
			.map((node) -> node.host() + ":" + node.port())
			.collect(Collectors.joining(","));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					RedeqAutoConfiguration.class, RedeqJournalAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.cluster.nodes=" + seeds,
					"spring.datasource.url=" + postgres.jdbcUrl(), "spring.datasource.username=" + PostgresServer.USER,
					"spring.datasource.password=", "redeq.journal.enabled=true",
					"redeq.journal.initialize-schema=always", "redeq.journal.check-interval=1s",
					"redeq.consumer.enabled=false")
			.run((context) -> {
				RedeqClient client = context.getBean(RedeqClient.class);
				RedeqJournal journal = context.getBean(RedeqJournal.class);
				int jobs = 90;
				List<Job> batch = new ArrayList<>();
				for (int i = 0; i < jobs; i++) {
					batch.add(Job.builder("spread").id("s-" + i).payload("x").delay(Duration.ofHours(1)).build());
				}
				client.scheduleAll(batch);
				assertThat(journal.writer().flush(JournalScenarios.TIMEOUT)).isTrue();
				assertThat(journal.checkRedisNow()).isFalse();
				// A master that does not hold the engine's meta key (watched before).
				RedisServer metaMaster = cluster.masterOf(SlotHash.getSlot("redeq:meta"));
				RedisServer flushed = cluster.masters()
					.stream()
					.filter((master) -> master.port() != metaMaster.port())
					.findFirst()
					.orElseThrow();
				List<Integer> flushedSlots = cluster.slotsOf(flushed);
				KeySpace keys = new KeySpace("redeq", 16);
				List<String> lost = new ArrayList<>();
				for (Job job : batch) {
					int bucket = keys.bucketOf(KeySpace.jobKey("spread", job.id()));
					if (flushedSlots.contains(SlotHash.getSlot(keys.tag(bucket)))) {
						lost.add(job.id());
					}
				}
				assertThat(lost).isNotEmpty().hasSizeLessThan(jobs);
				flushed.flushAll();
				assertThat(client.find("spread", lost.get(0))).isEmpty();
				Awaitility.await().atMost(Duration.ofSeconds(20)).until(journal::checkRedisNow);
				assertThat(journal.lossReason()).contains("Redis lost its data");
				assertThat(context.getBean(RedeqAdmin.class).recoverFromJournal()).isEqualTo(lost.size());
				assertThat(journal.checkRedisNow()).isFalse();
				for (Job job : batch) {
					assertThat(client.find("spread", job.id())).as(job.id()).isPresent();
				}
				assertThat(context.getBean(RedeqAdmin.class).recoverFromJournal()).isZero();
			});
	}

}
