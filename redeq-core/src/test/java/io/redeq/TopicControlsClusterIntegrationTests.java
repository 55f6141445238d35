package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.ClusterClients;
import io.redeq.test.RedisCluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Topic controls on a real Redis Cluster (3 masters): the rate limiter's keys live in a
 * slot of their own while the topic's jobs are spread over every master, and the limit
 * still holds across two engines; pause, promote and priorities work there too, and
 * priority order holds across the buckets of every master.
 */
class TopicControlsClusterIntegrationTests {

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
		Redeq engine = Redeq.builder(client).instanceId(id).build();
		this.engines.add(engine);
		return engine;
	}

	@Test
	void theRateLimitHoldsAcrossEnginesWhileTheTopicsJobsSpanEveryMaster() throws Exception {
		Redeq first = engine("cluster-limited-0");
		Redeq second = engine("cluster-limited-1");
		KeySpace keys = new KeySpace(first.options().prefix(), first.options().buckets());
		List<Job> jobs = new ArrayList<>();
		Set<Integer> masters = ConcurrentHashMap.newKeySet();
		for (int i = 0; i < 30; i++) {
			String id = "c-" + i;
			jobs.add(Job.builder("cluster.partner").id(id).payload(i).build());
			int slot = SlotHash.getSlot(keys.tag(keys.bucketOf(KeySpace.jobKey("cluster.partner", id))));
			masters.add(client.getPartitions().getMasterBySlot(slot).getUri().getPort());
		}
		assertThat(masters).as("the jobs span every master").hasSize(3);
		first.client().scheduleAll(jobs);
		await().atMost(Duration.ofSeconds(15)).until(() -> first.admin().stats("cluster.partner").ready() == 30);

		Set<String> started = ConcurrentHashMap.newKeySet();
		String grantsKey = keys.rateLimitKeys("cluster.partner")[0];
		try (StatefulRedisClusterConnection<String, String> reader = client.connect();
				GrantLog log = new GrantLog(() -> reader.sync().zrangeWithScores(grantsKey, 0, -1))) {
			for (Redeq engine : List.of(first, second)) {
				engine.subscribe("cluster.partner", Integer.class, (n, delivery) -> started.add(delivery.id()),
						SubscriptionOptions.builder().concurrency(4).rateLimit(10, Duration.ofSeconds(1)).build());
			}
			await().atMost(Duration.ofSeconds(60)).until(() -> started.size() == 30);
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(log.total()).isEqualTo(30));
			assertThat(log.mostInAnyWindow(1000)).isLessThanOrEqualTo(10);
			assertThat(log.spanMillis()).isBetween(2_000L, 4_500L);
		}
	}

	@Test
	void pausePromoteAndPrioritiesWorkOnTheCluster() {
		Redeq engine = engine("cluster-controls");
		List<String> order = new CopyOnWriteArrayList<>();
		engine.subscribe("cluster.ops", String.class, (label, delivery) -> order.add(label),
				SubscriptionOptions.builder().concurrency(1).build());
		engine.admin().pause("cluster.ops");
		KeySpace keys = new KeySpace(engine.options().prefix(), engine.options().buckets());
		List<String> ids = new ArrayList<>();
		int bucket = keys.bucketOf(KeySpace.jobKey("cluster.ops", "o0"));
		for (int i = 0; ids.size() < 4 && i < 100_000; i++) {
			if (keys.bucketOf(KeySpace.jobKey("cluster.ops", "o" + i)) == bucket) {
				ids.add("o" + i);
			}
		}
		RedeqClient producer = engine.client();
		producer.schedule(Job.builder("cluster.ops").id(ids.get(0)).payload("p0").build());
		producer.schedule(Job.builder("cluster.ops").id(ids.get(1)).payload("p9").priority(9).build());
		producer.schedule(Job.builder("cluster.ops").id(ids.get(2)).payload("p4").priority(4).build());
		producer.schedule(Job.builder("cluster.ops")
			.id(ids.get(3))
			.payload("p2-promoted")
			.priority(2)
			.delay(Duration.ofHours(1))
			.build());
		await().atMost(Duration.ofSeconds(15)).until(() -> engine.admin().stats("cluster.ops").ready() == 3);
		assertThat(engine.admin().promote("cluster.ops", ids.get(3))).isTrue();
		assertThat(engine.admin().stats("cluster.ops").ready()).isEqualTo(4);
		await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(order::isEmpty);

		engine.admin().resume("cluster.ops");
		await().atMost(Duration.ofSeconds(15)).until(() -> order.size() == 4);
		assertThat(order).containsExactly("p9", "p4", "p2-promoted", "p0");
	}

	/**
	 * Priority and due order across buckets on every master: ten priority-0 jobs in the
	 * first buckets, three priority-9 jobs in later ones, due 5 ms apart, one handler at
	 * a time once the topic is resumed.
	 */
	@Test
	void aResumedTopicRunsItsPriorityNineJobsFirstAcrossTheBucketsOfEveryMaster() {
		Redeq engine = engine("cluster-order");
		List<String> order = new CopyOnWriteArrayList<>();
		engine.admin().pause("cluster.order");
		engine.subscribe("cluster.order", String.class, (label, delivery) -> order.add(label),
				SubscriptionOptions.builder().concurrency(1).build());
		KeySpace keys = new KeySpace(engine.options().prefix(), engine.options().buckets());
		Set<Integer> masters = ConcurrentHashMap.newKeySet();
		List<Job> jobs = new ArrayList<>();
		Instant base = Instant.now().minusSeconds(5);
		for (int bucket = 0; bucket < 13; bucket++) {
			String id = null;
			for (int i = 0; id == null && i < 100_000; i++) {
				if (keys.bucketOf(KeySpace.jobKey("cluster.order", "o" + i)) == bucket) {
					id = "o" + i;
				}
			}
			assertThat(id).as("an id in bucket %d", bucket).isNotNull();
			int slot = SlotHash.getSlot(keys.tag(bucket));
			masters.add(client.getPartitions().getMasterBySlot(slot).getUri().getPort());
			int priority = (bucket < 10) ? 0 : 9;
			String label = "p" + priority + "-" + ((bucket < 10) ? bucket : bucket - 10);
			jobs.add(Job.builder("cluster.order")
				.id(id)
				.payload(label)
				.dueAt(base.plusMillis(5L * bucket))
				.priority(priority)
				.build());
		}
		assertThat(masters).as("the jobs span every master").hasSize(3);
		engine.client().scheduleAll(jobs);
		await().atMost(Duration.ofSeconds(15)).until(() -> engine.admin().stats("cluster.order").ready() == 13);

		engine.admin().resume("cluster.order");

		await().atMost(Duration.ofSeconds(15)).until(() -> order.size() == 13);
		assertThat(order).containsExactly("p9-0", "p9-1", "p9-2", "p0-0", "p0-1", "p0-2", "p0-3", "p0-4", "p0-5",
				"p0-6", "p0-7", "p0-8", "p0-9");
	}

}
