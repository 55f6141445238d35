package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three instances schedule and consume under load, and keep doing so while, in every
 * round, one of them is killed (its Redis client cut off without any cleanup, as a crash
 * would), the bucket count is doubled or halved by one of the running instances while the
 * dead one's jobs are still leased (the change waits for their leases to expire), and a
 * new instance, configured with the first count, starts while the change runs. At the end
 * every accepted job has run, no schedule call failed, and a job ran twice only when one
 * of its runs was on a killed instance (at-least-once after a crash); nothing stays in
 * any bucket.
 *
 * <p>
 * Four rounds by default (about half a minute); {@code -Dredeq.chaos.rounds=N} runs a
 * longer soak.
 */
@RedisTest
class ChangeBucketCountChaosIntegrationTests {

	private static final Logger logger = LoggerFactory.getLogger(ChangeBucketCountChaosIntegrationTests.class);

	private static final String PREFIX = "chaos";

	private static final String TOPIC = "load";

	/** The counts the rounds change to, in turn: doubled and halved. */
	private static final int[] COUNTS = { 32, 64, 32, 16 };

	private static final int ROUNDS = Integer.getInteger("redeq.chaos.rounds", COUNTS.length);

	private static final Duration LOAD = Duration.ofMillis(2500);

	private final RedisClient lettuce;

	private final RedisServer server;

	/** Job id to the instances whose handler ran it, in order. */
	private final Map<String, List<String>> runs = new ConcurrentHashMap<>();

	private final Set<String> accepted = ConcurrentHashMap.newKeySet();

	private final Set<String> killed = ConcurrentHashMap.newKeySet();

	private final AtomicLong nextId = new AtomicLong();

	/** What a producer met that it should not have: a refused or failed schedule. */
	private final List<String> producerErrors = new CopyOnWriteArrayList<>();

	ChangeBucketCountChaosIntegrationTests(RedisClient lettuce, RedisServer server) {
		this.lettuce = lettuce;
		this.server = server;
	}

	@Test
	void nothingIsLostOrRunTwiceExceptAfterACrashWhileTheCountIsDoubledAndHalved() throws Exception {
		List<Instance> running = new ArrayList<>();
		List<Instance> everyone = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			running.add(new Instance("first-i" + i));
		}
		everyone.addAll(running);
		ExecutorService starter = Executors.newSingleThreadExecutor();
		try {
			for (int round = 0; round < ROUNDS; round++) {
				pause(LOAD.dividedBy(2));
				running.remove(round % running.size()).kill();
				int count = COUNTS[round % COUNTS.length];
				String name = "r" + round + "-new";
				// Starts while the change runs: it holds, then follows the new count.
				Future<Instance> joining = starter.submit(() -> {
					await().atMost(Duration.ofSeconds(10)).until(this::changing);
					return new Instance(name);
				});
				running.get(0).redeq.admin().changeBucketCount(count);
				Instance joined = joining.get(30, TimeUnit.SECONDS);
				running.add(joined);
				everyone.add(joined);
				pause(LOAD.dividedBy(2));
			}
			for (Instance instance : running) {
				instance.stopProducing();
			}
			Redeq any = running.get(0).redeq;
			await().atMost(Duration.ofSeconds(30)).until(() -> this.runs.keySet().containsAll(this.accepted));
			await().atMost(Duration.ofSeconds(10)).until(() -> any.admin().stats(TOPIC).pending() == 0);
			int last = COUNTS[(ROUNDS - 1) % COUNTS.length];
			await().atMost(Duration.ofSeconds(10))
				.until(() -> running.stream().allMatch((instance) -> instance.redeq.options().buckets() == last));
		}
		finally {
			starter.shutdownNow();
			for (Instance instance : everyone) {
				instance.stop();
			}
		}
		assertThat(this.producerErrors).as("schedule calls that failed").isEmpty();
		assertThat(this.accepted).as("jobs accepted").hasSizeGreaterThan(ROUNDS * 300);
		assertThat(this.runs.keySet()).as("jobs run that were never accepted").isSubsetOf(this.accepted);
		long twice = this.runs.values().stream().filter((by) -> by.size() > 1).count();
		logger.info("Accepted {} jobs over {} rounds; {} ran more than once after a crash", this.accepted.size(),
				ROUNDS, twice);
		for (Map.Entry<String, List<String>> run : this.runs.entrySet()) {
			List<String> by = run.getValue();
			if (by.size() > 1) {
				assertThat(by).as("instances that ran job " + run.getKey() + " more than once")
					.anyMatch(this.killed::contains);
			}
		}
	}

	/**
	 * Lets the load run for a while: the instances work meanwhile, nothing is awaited.
	 */
	private static void pause(Duration load) {
		long until = System.nanoTime() + load.toNanos();
		// Generous: on a loaded machine the check itself may run late.
		await().atMost(load.plusSeconds(30)).until(() -> System.nanoTime() >= until);
	}

	private boolean changing() {
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			return connection.sync().hget(PREFIX + ":meta", "buckets-changing-to") != null;
		}
	}

	/** One engine with its own Redis client, a producer thread and a listener. */
	private final class Instance {

		private final String name;

		private final RedisClient client;

		private final Redeq redeq;

		private final AtomicBoolean producing = new AtomicBoolean(true);

		private final Thread producer;

		Instance(String name) {
			this.name = name;
			this.client = RedisClient.create(ChangeBucketCountChaosIntegrationTests.this.server.uri());
			// Configured with the first count: each instance follows the recorded one.
			this.redeq = Redeq.builder(this.client)
				.prefix(PREFIX)
				.buckets(16)
				.instanceId(name)
				.lockTtl(Duration.ofSeconds(1))
				.shutdownTimeout(Duration.ofSeconds(2))
				.build();
			this.redeq.subscribe(TOPIC, Long.class,
					(payload, delivery) -> ChangeBucketCountChaosIntegrationTests.this.runs
						.computeIfAbsent(delivery.id(), (id) -> new CopyOnWriteArrayList<>())
						.add(name),
					SubscriptionOptions.builder().concurrency(4).lease(Duration.ofSeconds(1)).build());
			this.producer = new Thread(this::produce, "chaos-producer-" + name);
			this.producer.start();
		}

		private void produce() {
			long deadline = System.nanoTime() + LOAD.toNanos() * (ROUNDS + 2);
			while (this.producing.get() && System.nanoTime() < deadline) {
				long n = ChangeBucketCountChaosIntegrationTests.this.nextId.incrementAndGet();
				String id = "j" + n;
				long delay = ThreadLocalRandom.current().nextLong(0, 1500);
				try {
					this.redeq.client()
						.schedule(Job.builder(TOPIC).id(id).payload(n).delay(Duration.ofMillis(delay)).build());
					ChangeBucketCountChaosIntegrationTests.this.accepted.add(id);
				}
				catch (RuntimeException ex) {
					ChangeBucketCountChaosIntegrationTests.this.producerErrors.add(this.name + ": " + ex);
					return;
				}
				// Pacing the load, not waiting for a condition.
				try {
					Thread.sleep(3);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}

		/** Stops producing, then cuts the engine off from Redis without any cleanup. */
		void kill() throws InterruptedException {
			stopProducing();
			ChangeBucketCountChaosIntegrationTests.this.killed.add(this.name);
			this.client.shutdown(Duration.ZERO, Duration.ZERO);
		}

		void stop() throws InterruptedException {
			stopProducing();
			this.redeq.close();
			this.client.shutdown();
		}

		private void stopProducing() throws InterruptedException {
			this.producing.set(false);
			if (this.producer.isAlive()) {
				this.producer.join(5000);
			}
		}

	}

}
