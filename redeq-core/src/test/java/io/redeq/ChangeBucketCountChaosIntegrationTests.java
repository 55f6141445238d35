package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three instances schedule and consume under load; in every round one of them is killed
 * (its Redis client cut off without any cleanup, as a crash would), the others stop, the
 * bucket count is doubled or halved while the dead instance's jobs are still leased and
 * its heartbeat has not expired yet (the change waits for its leases), and three new
 * instances, all configured with the first count, start on the recorded one. At the end
 * every accepted job has run, and a job ran twice only when one of its runs was on a
 * killed instance (at-least-once after a crash); nothing stays in any bucket.
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
		for (int round = 0; round < ROUNDS; round++) {
			List<Instance> instances = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				instances.add(new Instance("r" + round + "-i" + i));
			}
			long killAt = System.nanoTime() + LOAD.toNanos() / 2;
			long endAt = System.nanoTime() + LOAD.toNanos();
			await().atMost(LOAD.plusSeconds(1)).until(() -> System.nanoTime() >= killAt);
			instances.get(round % 3).kill();
			await().atMost(LOAD.plusSeconds(1)).until(() -> System.nanoTime() >= endAt);
			for (Instance instance : instances) {
				instance.stop();
			}
			int count = COUNTS[round % COUNTS.length];
			// The killed instance's heartbeat has not expired yet and its jobs are still
			// leased: the change runs all the same, and waits for those leases to expire
			// to move the jobs (fencing the dead holder).
			try (Redeq admin = Redeq.builder(this.lettuce).prefix(PREFIX).autoStartup(false).build()) {
				admin.admin().changeBucketCount(count);
			}
		}
		List<Instance> last = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			last.add(new Instance("last-i" + i, false));
		}
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> this.runs.keySet().containsAll(this.accepted));
			await().atMost(Duration.ofSeconds(10)).until(() -> last.get(0).redeq.admin().stats(TOPIC).pending() == 0);
			assertThat(last.get(0).redeq.options().buckets()).isEqualTo(COUNTS[(ROUNDS - 1) % COUNTS.length]);
		}
		finally {
			for (Instance instance : last) {
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

	/** One engine with its own Redis client, a producer thread and a listener. */
	private final class Instance {

		private final String name;

		private final RedisClient client;

		private final Redeq redeq;

		private final AtomicBoolean producing = new AtomicBoolean(true);

		private final Thread producer;

		Instance(String name) {
			this(name, true);
		}

		Instance(String name, boolean produce) {
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
			if (produce) {
				this.producer.start();
			}
		}

		private void produce() {
			long deadline = System.nanoTime() + LOAD.toNanos() * 2;
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
