package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.ClusterClients;
import io.redeq.test.RedisCluster;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedeqClient#poll} on a real Redis Cluster (3 masters): polls of two engines take
 * a topic's jobs from buckets on every master, each job once; a poll waiting on one
 * engine is woken by a job another engine scheduled.
 */
class PollClusterIntegrationTests {

	private static ClusterClients clients;

	private static RedisClusterClient client;

	private final List<Redeq> engines = new ArrayList<>();

	@BeforeAll
	static void startCluster() {
		clients = new ClusterClients(new RedisCluster().start());
		client = clients.create();
	}

	@AfterAll
	static void stopCluster() {
		if (clients != null) {
			clients.close();
		}
	}

	@AfterEach
	void stopEngines() {
		this.engines.forEach(Redeq::close);
	}

	private Redeq engine(String id) {
		// A poll interval longer than the waits here: only a signal can wake a
		// poll in time.
		Redeq engine = Redeq.builder(client).instanceId(id).pollInterval(Duration.ofSeconds(30)).build();
		this.engines.add(engine);
		return engine;
	}

	@Test
	void pollsOfTwoEnginesTakeEveryJobOnceFromEveryMaster() throws Exception {
		Redeq first = engine("cluster-poll-0");
		Redeq second = engine("cluster-poll-1");
		KeySpace keys = new KeySpace(first.options().prefix(), first.options().buckets());
		List<Job> jobs = new ArrayList<>();
		Set<Integer> masters = ConcurrentHashMap.newKeySet();
		for (int i = 0; i < 30; i++) {
			String id = "p-" + i;
			jobs.add(Job.builder("cluster.poll").id(id).payload(i).build());
			int slot = SlotHash.getSlot(keys.tag(keys.bucketOf(KeySpace.jobKey("cluster.poll", id))));
			masters.add(client.getPartitions().getMasterBySlot(slot).getUri().getPort());
		}
		assertThat(masters).as("the jobs span every master").hasSize(3);
		first.client().scheduleAll(jobs);

		List<String> taken = new CopyOnWriteArrayList<>();
		List<CompletableFuture<Void>> pollers = new ArrayList<>();
		for (Redeq engine : List.of(first, second)) {
			pollers.add(CompletableFuture.runAsync(() -> {
				// Bounded: 30 jobs, and each poll waits at most 2 s once none is left.
				for (int i = 0; i <= 30; i++) {
					Optional<PolledJob> job = engine.client().poll("cluster.poll", Duration.ofSeconds(2));
					if (job.isEmpty()) {
						return;
					}
					taken.add(job.get().id());
					job.get().ack();
				}
			}));
		}
		CompletableFuture.allOf(pollers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

		assertThat(taken).hasSize(30).doesNotHaveDuplicates();
		TopicStats stats = first.admin().stats("cluster.poll");
		assertThat(stats.delayed() + stats.ready() + stats.inFlight() + stats.dead()).isZero();
	}

	@Test
	void aPollWaitingOnOneEngineIsWokenByAJobAnotherScheduled() throws Exception {
		Redeq producer = engine("cluster-producer");
		Redeq consumer = engine("cluster-consumer");
		long start = System.nanoTime();
		CompletableFuture<Optional<PolledJob>> polled = CompletableFuture
			.supplyAsync(() -> consumer.client().poll("cluster.wake", Duration.ofSeconds(30)));
		producer.client()
			.schedule(Job.builder("cluster.wake").id("wake").payload("x").delay(Duration.ofMillis(300)).build());

		Optional<PolledJob> job = polled.get(20, TimeUnit.SECONDS);

		assertThat(job).hasValueSatisfying((j) -> assertThat(j.id()).isEqualTo("wake"));
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000);
		job.get().ack();
		assertThat(producer.client().find("cluster.wake", "wake")).isEmpty();
	}

}
