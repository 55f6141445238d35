package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.JavaProcess;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Instances that die with SIGKILL, as real processes: nothing they held is lost, nothing
 * doubled.
 */
@RedisTest
class CrashIntegrationTests {

	private final RedisServer server;

	private final RedisClient lettuce;

	private final StatefulRedisConnection<String, String> connection;

	CrashIntegrationTests(RedisServer server, RedisClient lettuce) {
		this.server = server;
		this.lettuce = lettuce;
		this.connection = lettuce.connect();
	}

	@Test
	void jobsOfAnInstanceKilledWhileItsHandlersRunAreCompletedByAnother() {
		try (Redeq redeq = Redeq.builder(this.lettuce).migratorEnabled(false).build()) {
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				jobs.add(Job.builder("crash").id("c" + i).payload("x").build());
			}
			redeq.client().scheduleAll(jobs);
		}
		try (JavaProcess doomed = child("doomed", "consume", "crash", "4", "true")) {
			await().atMost(Duration.ofSeconds(60)).until(() -> count("test:started") == 4);
			doomed.kill();
		}
		Map<String, Integer> attempts = new ConcurrentHashMap<>();
		try (Redeq survivor = Redeq.builder(this.lettuce).lockTtl(Duration.ofSeconds(1)).build()) {
			survivor.subscribe("crash", String.class,
					(payload, delivery) -> attempts.put(delivery.id(), delivery.attempt()),
					SubscriptionOptions.builder().concurrency(4).build());
			await().atMost(Duration.ofSeconds(30)).until(() -> attempts.size() == 8);
			await().atMost(Duration.ofSeconds(5)).until(() -> survivor.admin().stats("crash").pending() == 0);
		}
		Map<String, String> startedByDoomed = commands().hgetall("test:started");
		assertThat(startedByDoomed).hasSize(4);
		startedByDoomed.keySet().forEach((id) -> assertThat(attempts).containsEntry(id, 2));
		assertThat(attempts.values()).filteredOn((attempt) -> attempt == 1).hasSize(4);
	}

	@Test
	void anInstanceKilledWhileMigratingALargeBatchLosesAndDoublesNothing() {
		int total = 100_000;
		try (Redeq producer = Redeq.builder(this.lettuce).migratorEnabled(false).build()) {
			List<Job> jobs = new ArrayList<>(total);
			for (int i = 0; i < total; i++) {
				jobs.add(Job.builder("bulk").id("b" + i).payload("x").build());
			}
			for (int from = 0; from < total; from += 10_000) {
				producer.client().scheduleAll(jobs.subList(from, from + 10_000));
			}
			try (JavaProcess doomed = child("doomed", "migrate", "50")) {
				await().atMost(Duration.ofSeconds(60))
					.pollInterval(Duration.ofMillis(5))
					.until(() -> producer.admin().stats("bulk").ready() > 0);
				doomed.kill();
			}
			TopicStats atKill = producer.admin().stats("bulk");
			assertThat(atKill.ready()).as("killed in the middle of migrating").isBetween(1L, total - 1L);
			assertThat(atKill.pending()).isEqualTo(total);
		}
		try (Redeq migrator = Redeq.builder(this.lettuce).lockTtl(Duration.ofSeconds(1)).build()) {
			await().atMost(Duration.ofSeconds(60)).until(() -> migrator.admin().stats("bulk").ready() == total);
			assertThat(migrator.admin().stats("bulk").delayed()).isZero();
		}
		List<String> ready = new ArrayList<>();
		KeySpace keys = new KeySpace("redeq", 16);
		for (int b = 0; b < 16; b++) {
			ready.addAll(commands().zrange(keys.readyKey(b, "bulk"), 0, -1));
		}
		assertThat(ready).hasSize(total).doesNotHaveDuplicates();
	}

	@Test
	void threeInstancesCompleteEveryJobOnceAndTakeOverAKilledOnesBuckets() {
		int total = 100_000;
		List<JavaProcess> instances = new ArrayList<>();
		try {
			for (String id : List.of("one", "two", "three")) {
				instances.add(child(id, "consume", "shared", "4", "false"));
			}
			for (JavaProcess instance : instances) {
				instance.awaitLine((line) -> line.startsWith("READY"), Duration.ofSeconds(60));
			}
			await().atMost(Duration.ofSeconds(30))
				.until(() -> lockOwners().size() == 16 && countPerOwner().values().stream().allMatch((n) -> n >= 4)
						&& countPerOwner().size() == 3);
			try (Redeq producer = Redeq.builder(this.lettuce).migratorEnabled(false).build()) {
				List<Job> jobs = new ArrayList<>(total);
				for (int i = 0; i < total; i++) {
					jobs.add(Job.builder("shared").id("s" + i).payload("x").delay(Duration.ofMillis(i % 2000)).build());
				}
				for (int from = 0; from < total; from += 10_000) {
					producer.client().scheduleAll(jobs.subList(from, from + 10_000));
				}
				await().atMost(Duration.ofSeconds(240)).until(() -> count("test:completed") == total);
				await().atMost(Duration.ofSeconds(10)).until(() -> producer.admin().stats("shared").pending() == 0);
			}
			assertThat(commands().hvals("test:completed")).as("completions per job").containsOnly("1");
			assertThat(commands().hvals("test:started")).as("deliveries per job").containsOnly("1");

			instances.get(0).kill();
			long killedAt = System.nanoTime();
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> lockOwners().size() == 16 && !countPerOwner().containsKey("one"));
			Duration takeover = Duration.ofNanos(System.nanoTime() - killedAt);
			assertThat(takeover).as("buckets of the killed instance taken over (lock TTL 1 s)")
				.isLessThan(Duration.ofSeconds(4));
		}
		finally {
			instances.forEach(JavaProcess::close);
		}
	}

	private JavaProcess child(String instanceId, String... args) {
		List<String> all = new ArrayList<>(List.of(this.server.uri().toString(), instanceId));
		all.addAll(List.of(args));
		return JavaProcess.start(ChildInstance.class, all.toArray(String[]::new));
	}

	private Map<Integer, String> lockOwners() {
		KeySpace keys = new KeySpace("redeq", 16);
		Map<Integer, String> owners = new HashMap<>();
		for (int b = 0; b < 16; b++) {
			String owner = commands().get(keys.tag(b) + ":lock");
			if (owner != null) {
				owners.put(b, owner);
			}
		}
		return owners;
	}

	private Map<String, Integer> countPerOwner() {
		Map<String, Integer> counts = new HashMap<>();
		lockOwners().values().forEach((owner) -> counts.merge(owner, 1, Integer::sum));
		return counts;
	}

	private long count(String hash) {
		return commands().hlen(hash);
	}

	private RedisCommands<String, String> commands() {
		return this.connection.sync();
	}

	@AfterEach
	void closeConnection() {
		this.connection.close();
	}

}
