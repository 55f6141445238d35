package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How one topic's jobs spread over the instances that consume it, on a real redis-server:
 * three engines, each migrating its share of the buckets and consuming the topic, run
 * 3,000 jobs between them. Each engine hands the jobs its buckets bring due to its own
 * idle handlers first, and every engine's fetcher takes the rest from any bucket's ready
 * set, so each instance does a part of the work; the test fails if one instance takes
 * (nearly) everything or one is starved. Each run prints the jobs each instance ran.
 */
@RedisTest
class ConsumptionSpreadIntegrationTests {

	private static final int JOBS = 3_000;

	/**
	 * The least share of the jobs each of the three instances must run: well below an
	 * even third, so a loaded machine does not fail it, and far above what a starved
	 * instance gets.
	 */
	private static final double LEAST_SHARE = 0.10;

	private final RedisClient lettuce;

	private final List<Redeq> engines = new ArrayList<>();

	ConsumptionSpreadIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@AfterEach
	void close() {
		this.engines.forEach(Redeq::close);
	}

	@Test
	void threeInstancesEachRunAShareOfOneTopicsJobsDueOverTwoSeconds() {
		assertShares(runSpread(2000, 0));
	}

	/**
	 * All due at once, to handlers that take 5 ms: the instance that migrates a bucket
	 * cannot take its jobs faster than its handlers finish them, so the others' fetchers
	 * take the rest. (With handlers that take no time, whichever instance is quickest
	 * drains most of such a burst: its prefetch claims up to 64 jobs per handler at
	 * once.)
	 */
	@Test
	void threeInstancesEachRunAShareOfOneTopicsJobsDueAtOnceToHandlersThatTakeTime() {
		assertShares(runSpread(0, 5));
	}

	private Map<String, Integer> runSpread(int dueSpreadMillis, long handlerMillis) {
		Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();
		Map<String, AtomicInteger> runsPerJob = new ConcurrentHashMap<>();
		for (String instanceId : List.of("one", "two", "three")) {
			Redeq engine = engine(Redeq.builder(this.lettuce).instanceId(instanceId).lockTtl(Duration.ofSeconds(3)));
			AtomicInteger mine = ran.computeIfAbsent(instanceId, (id) -> new AtomicInteger());
			engine.subscribe("spread", String.class, (payload, delivery) -> {
				if (handlerMillis > 0) {
					Thread.sleep(handlerMillis); // the handler's work
				}
				mine.incrementAndGet();
				runsPerJob.computeIfAbsent(delivery.id(), (id) -> new AtomicInteger()).incrementAndGet();
			}, SubscriptionOptions.builder().concurrency(4).build());
		}
		// Each takes at most 6 of the 16 buckets (a share rounded up), so the last
		// one takes 4.
		await().atMost(Duration.ofSeconds(15))
			.until(() -> this.engines.stream().allMatch((engine) -> engine.ownedBuckets().length >= 4)
					&& this.engines.stream().mapToInt((engine) -> engine.ownedBuckets().length).sum() == 16);
		Redeq producer = engine(Redeq.builder(this.lettuce).instanceId("producer").migratorEnabled(false));
		List<Job> jobs = new ArrayList<>(JOBS);
		for (int i = 0; i < JOBS; i++) {
			long delay = (dueSpreadMillis > 0) ? 500 + i % dueSpreadMillis : 500;
			jobs.add(Job.builder("spread").id("s" + i).payload("x").delay(Duration.ofMillis(delay)).build());
		}
		producer.client().scheduleAll(jobs);

		await().atMost(Duration.ofSeconds(60)).until(() -> runsPerJob.size() == JOBS);
		assertThat(runsPerJob.values()).as("runs per job").allMatch((runs) -> runs.get() == 1);
		Map<String, Integer> shares = ran.entrySet()
			.stream()
			.collect(Collectors.toMap(Map.Entry::getKey, (entry) -> entry.getValue().get()));
		System.out.println("Jobs run per instance (" + JOBS + " jobs due over " + dueSpreadMillis + " ms, handlers of "
				+ handlerMillis + " ms): " + shares);
		return shares;
	}

	private static void assertShares(Map<String, Integer> shares) {
		assertThat(shares.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(JOBS);
		assertThat(shares).as("jobs run per instance")
			.hasSize(3)
			.allSatisfy((instance, count) -> assertThat(count).as("jobs run by instance %s", instance)
				.isGreaterThanOrEqualTo((int) (JOBS * LEAST_SHARE)));
	}

	private Redeq engine(Redeq.Builder builder) {
		Redeq engine = builder.build();
		this.engines.add(engine);
		return engine;
	}

}
