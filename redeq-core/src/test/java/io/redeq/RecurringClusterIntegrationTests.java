package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

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
import static org.awaitility.Awaitility.await;

/**
 * Recurring jobs on a three-master Redis Cluster: declaring, firing (the migrate script
 * with the recurring hash declared), refilling cron plans, listing and cancelling all
 * stay inside one bucket's slot, for jobs spread over every master.
 */
class RecurringClusterIntegrationTests {

	private static final String TOPIC = "report";

	private static ClusterClients clients;

	private static RedisClusterClient client;

	private final List<Redeq> engines = new ArrayList<>();

	/** Per recurring id: tick and local time its handler started, in delivery order. */
	private final Map<String, List<long[]>> ticksById = new ConcurrentHashMap<>();

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
	void stop() {
		this.engines.forEach(Redeq::close);
	}

	@Test
	void recurringJobsOnEveryMasterRunOncePerTickAndCanBeListedAndCancelled() {
		Redeq first = engine("one");
		engine("two");
		KeySpace keys = new KeySpace("recur", 16);
		List<String> ids = List.of("a", "b", "c", "d", "e", "f");
		assertThat(ids.stream()
			.map((id) -> client.getPartitions()
				.getMasterBySlot(SlotHash.getSlot(keys.tag(keys.bucketOf(KeySpace.jobKey(TOPIC, id)))))
				.getNodeId())
			.distinct()).as("the recurring jobs' masters").hasSize(3);
		for (String id : ids) {
			Recurring.Builder builder = Recurring.builder(TOPIC).id(id);
			first.client()
				.scheduleRecurring(id.equals("a") ? builder.cron("* * * * * *").build()
						: builder.every(Duration.ofSeconds(1)).build());
		}

		await().atMost(Duration.ofSeconds(60))
			.until(() -> ids.stream().allMatch((id) -> this.ticksById.getOrDefault(id, List.of()).size() >= 10));

		this.ticksById.forEach((id, runs) -> RecurringIntegrationTests.assertEveryTickRanOnceOrWasMerged(runs, 1000));
		assertThat(first.admin().recurring()).extracting(RecurringInfo::id).containsExactlyElementsOf(ids);
		for (String id : ids) {
			assertThat(first.client().cancelRecurring(TOPIC, id)).isTrue();
		}
		assertThat(first.admin().recurring()).isEmpty();
	}

	private Redeq engine(String instanceId) {
		Redeq engine = Redeq.builder(client).prefix("recur").buckets(16).instanceId(instanceId).build();
		this.engines.add(engine);
		engine.subscribe(TOPIC, String.class,
				(payload, delivery) -> this.ticksById
					.computeIfAbsent(delivery.id(), (id) -> new CopyOnWriteArrayList<>())
					.add(new long[] { delivery.dueAt().toEpochMilli(), System.currentTimeMillis() }));
		return engine;
	}

}
