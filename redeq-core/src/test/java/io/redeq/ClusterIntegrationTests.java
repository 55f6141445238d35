package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.FlushMode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.ScheduleRequest;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.test.ClusterClients;
import io.redeq.test.RedisCluster;
import io.redeq.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * redeq on a real Redis Cluster (3 masters + 3 replicas) through Lettuce's cluster
 * client: one topic's jobs spread over every master, every operation works, and a master
 * failover loses no job acknowledged with {@code waitReplicas(1)}. One cluster for the
 * class (forming one takes ~15 s); the failover runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterIntegrationTests {

	private static final Pattern CALLS = Pattern.compile("cmdstat_(evalsha|eval|fcall):calls=(\\d+)");

	private static RedisCluster cluster;

	private static ClusterClients clients;

	private static RedisClusterClient client;

	private static RedisClient nodes;

	@BeforeAll
	static void startCluster() {
		cluster = new RedisCluster().start();
		clients = new ClusterClients(cluster);
		client = clients.create(Duration.ofMillis(200));
		nodes = RedisClient.create();
	}

	@AfterAll
	static void stopCluster() {
		if (nodes != null) {
			nodes.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
		if (clients != null) {
			clients.close();
		}
	}

	/**
	 * The port of the master that serves a bucket, in Lettuce's current view of the
	 * cluster.
	 */
	private static int masterPortOf(KeySpace keys, int bucket) {
		return client.getPartitions().getMasterBySlot(SlotHash.getSlot(keys.tag(bucket))).getUri().getPort();
	}

	private static <T> T onNode(RedisServer node, java.util.function.Function<RedisCommands<String, String>, T> call) {
		try (StatefulRedisConnection<String, String> connection = nodes.connect(StringCodec.UTF8, node.uri())) {
			return call.apply(connection.sync());
		}
	}

	@Test
	@Order(1)
	void oneTopicsJobsAndCommandsSpreadEvenlyOverEveryMaster() {
		List<RedisServer> masters = cluster.masters();
		assertThat(masters).hasSize(3);
		masters.forEach((master) -> onNode(master, RedisCommands::configResetstat));
		int total = 6000;
		try (Redeq redeq = Redeq.builder(client).prefix("spread").buckets(16).migratorEnabled(false).build()) {
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < total; i++) {
				jobs.add(Job.builder("order.timeout")
					.id("order-" + i)
					.payload(Map.of("order", i))
					.delay(Duration.ofHours(1))
					.build());
			}
			for (int from = 0; from < total; from += 1000) {
				redeq.client().scheduleAll(jobs.subList(from, from + 1000));
			}
			KeySpace keys = new KeySpace("spread", 16);
			Map<Integer, Long> jobsPerMaster = new LinkedHashMap<>();
			Map<Integer, Long> callsPerMaster = new LinkedHashMap<>();
			Map<Integer, List<Integer>> bucketsPerMaster = new LinkedHashMap<>();
			for (RedisServer master : masters) {
				List<Integer> buckets = new ArrayList<>();
				for (int b = 0; b < 16; b++) {
					if (masterPortOf(keys, b) == master.port()) {
						buckets.add(b);
					}
				}
				// Asked of the node itself over a plain connection: a key it did not hold
				// would be -MOVED.
				long held = onNode(master,
						(redis) -> buckets.stream().mapToLong((b) -> redis.hlen(keys.tag(b) + ":payload")).sum());
				long calls = onNode(master, (redis) -> {
					Matcher m = CALLS.matcher(redis.info("commandstats"));
					long sum = 0;
					while (m.find()) {
						sum += Long.parseLong(m.group(2));
					}
					return sum;
				});
				bucketsPerMaster.put(master.port(), buckets);
				jobsPerMaster.put(master.port(), held);
				callsPerMaster.put(master.port(), calls);
			}
			double even = total / 3.0;
			long callTotal = callsPerMaster.values().stream().mapToLong(Long::longValue).sum();
			for (int port : jobsPerMaster.keySet()) {
				System.out.printf(
						"[cluster-split] master :%d buckets=%s jobs=%d (%.1f%% of even) script calls=%d (%.1f%% of even)%n",
						port, bucketsPerMaster.get(port), jobsPerMaster.get(port), 100 * jobsPerMaster.get(port) / even,
						callsPerMaster.get(port), 100 * callsPerMaster.get(port) / (callTotal / 3.0));
			}
			assertThat(jobsPerMaster.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(total);
			assertThat(jobsPerMaster.values()).allSatisfy((held) -> assertThat(held / even).isBetween(0.8, 1.2));
			assertThat(callsPerMaster.values())
				.allSatisfy((calls) -> assertThat(calls / (callTotal / 3.0)).isBetween(0.8, 1.2));
			assertThat(redeq.admin().stats("order.timeout").delayed()).isEqualTo(total);
		}
	}

	@Test
	@Order(2)
	void anyReadyCountsReadyListsOnEveryNode() {
		KeySpace keys = new KeySpace("exists", 16);
		try (RedisConnections connections = new RedisConnections(client)) {
			RedisJobStore store = new RedisJobStore(keys, new ScriptRunner(connections, Duration.ofSeconds(5)));
			assertThat(store.anyReady("t")).isFalse();
			int last = 15;
			assertThat(masterPortOf(keys, 0)).isNotEqualTo(masterPortOf(keys, last));
			try (StatefulRedisClusterConnection<String, String> connection = client.connect(StringCodec.UTF8)) {
				connection.sync().zadd(keys.readyKey(last, "t"), 1, "t:1");
				assertThat(store.anyReady("t")).isTrue();
				connection.sync().zadd(keys.readyKey(0, "t"), 1, "t:2");
				String[] all = new String[16];
				for (int b = 0; b < 16; b++) {
					all[b] = keys.readyKey(b, "t");
				}
				// Lettuce splits the multi-key EXISTS per slot and sums the replies.
				assertThat(connection.sync().exists(all)).isEqualTo(2);
				assertThat(store.anyReady("t")).isTrue();
			}
		}
	}

	/**
	 * The function library goes to every master, each bucket's scripts run as its
	 * functions on the master that holds the bucket, and a master that lost the library
	 * (restarted without persistence) answers every call and gets it back.
	 */
	@Test
	@Order(3)
	void theFunctionLibraryServesEveryBucketOnEveryMaster() {
		KeySpace keys = new KeySpace("functions", 16);
		List<RedisServer> masters = cluster.masters();
		try (RedisConnections connections = new RedisConnections(client)) {
			ScriptRunner runner = new ScriptRunner(connections, Duration.ofSeconds(5));
			RedisJobStore store = new RedisJobStore(keys, runner);
			scheduleInEveryBucket(store, "a");
			await().atMost(Duration.ofSeconds(10)).until(runner::callsFunctions);
			assertThat(masters).allSatisfy((master) -> assertThat(redeqLibraries(master)).hasSize(1));
			masters.forEach((master) -> onNode(master, RedisCommands::configResetstat));

			scheduleInEveryBucket(store, "b");
			assertThat(masters).allSatisfy((master) -> assertThat(callsOn(master, "fcall")).isGreaterThan(0));

			RedisServer forgetful = masters.get(1);
			onNode(forgetful, (redis) -> redis.functionFlush(FlushMode.SYNC));
			scheduleInEveryBucket(store, "c");
			await().atMost(Duration.ofSeconds(10))
				.until(() -> runner.callsFunctions() && redeqLibraries(forgetful).size() == 1);
			scheduleInEveryBucket(store, "d");
		}
		try (Redeq redeq = Redeq.builder(client).prefix("functions").buckets(16).migratorEnabled(false).build()) {
			assertThat(redeq.admin().stats("t")).as("4 jobs in each bucket")
				.isEqualTo(new TopicStats("t", 64, 0, 0, 0));
		}
	}

	private static void scheduleInEveryBucket(RedisJobStore store, String id) {
		for (int b = 0; b < 16; b++) {
			ScheduleRequest request = new ScheduleRequest(KeySpace.jobKey("t", id + b), "1", false, 3_600_000,
					Duplicate.REPLACE);
			store.scripts().await(store.schedule(b, 0, List.of(request)), "schedule");
		}
	}

	private static List<Map<String, Object>> redeqLibraries(RedisServer master) {
		return onNode(master, (redis) -> redis.functionList("redeq_*"));
	}

	private static long callsOn(RedisServer master, String command) {
		return onNode(master, (redis) -> {
			Matcher calls = Pattern.compile("cmdstat_" + command + ":calls=(\\d+)").matcher(redis.info("commandstats"));
			return calls.find() ? Long.parseLong(calls.group(1)) : 0;
		});
	}

	@Test
	@Order(4)
	void everyOperationWorksOnTheCluster() {
		Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		AtomicBoolean healed = new AtomicBoolean();
		try (Redeq redeq = Redeq.builder(client)
			.prefix("ops")
			.buckets(16)
			.maxAttempts(2)
			.backoff(new Backoff(Duration.ofMillis(50), 2.0, Duration.ofSeconds(1), 0.0))
			.pollInterval(Duration.ofSeconds(1))
			.build()) {
			RedeqClient jobs = redeq.client();
			RedeqAdmin admin = redeq.admin();

			String cancelled = jobs.schedule("mail", "cancel me", Duration.ofHours(1));
			assertThat(jobs.find("mail", cancelled))
				.hasValueSatisfying((info) -> assertThat(info.state()).isEqualTo(JobState.DELAYED));
			assertThat(jobs.cancel("mail", cancelled)).isTrue();
			assertThat(jobs.find("mail", cancelled)).isEmpty();
			jobs.schedule(Job.builder("mail").id("moved").payload("moved").delay(Duration.ofHours(1)).build());

			redeq.subscribe("mail", String.class, (payload, delivery) -> {
				deliveries.computeIfAbsent(delivery.id(), (id) -> new AtomicInteger()).incrementAndGet();
				if (payload.equals("flaky") && delivery.attempt() == 1) {
					throw new IllegalStateException("flaky fails once");
				}
				if (payload.equals("poison") && !healed.get()) {
					throw new IllegalStateException("poison always fails");
				}
			});
			List<Job> batch = new ArrayList<>();
			for (int i = 0; i < 200; i++) {
				batch.add(Job.builder("mail").id("ok-" + i).payload("ok").delay(Duration.ofMillis(i % 500)).build());
			}
			jobs.scheduleAll(batch);
			jobs.schedule(Job.builder("mail").id("flaky").payload("flaky").build());
			jobs.schedule(Job.builder("mail").id("poison").payload("poison").build());
			assertThat(jobs.reschedule("mail", "moved", Duration.ofMillis(200))).isTrue();

			await().atMost(Duration.ofSeconds(30))
				.until(() -> deliveries.size() == 203 && admin.stats("mail").dead() == 1);
			for (int i = 0; i < 200; i++) {
				assertThat(deliveries.get("ok-" + i)).as("ok-" + i).hasValue(1);
			}
			assertThat(deliveries.get("moved")).hasValue(1);
			assertThat(deliveries.get("flaky")).hasValue(2);
			assertThat(deliveries.get("poison")).hasValue(2);

			List<DeadJob> dead = admin.deadJobs("mail", 0, 10);
			assertThat(dead).singleElement().satisfies((job) -> {
				assertThat(job.id()).isEqualTo("poison");
				assertThat(job.lastError()).contains("poison always fails");
				assertThat(job.attempts()).isEqualTo(2);
			});
			assertThat(admin.topics()).contains("mail");

			healed.set(true);
			assertThat(admin.requeueDead("mail", "poison")).isTrue();
			await().atMost(Duration.ofSeconds(15)).until(() -> deliveries.get("poison").get() == 3);
			await().atMost(Duration.ofSeconds(5)).until(() -> admin.stats("mail").pending() == 0);
			assertThat(admin.stats("mail")).isEqualTo(new TopicStats("mail", 0, 0, 0, 0));
			assertThat(jobs.find("mail", "poison")).isEmpty();
		}
	}

	/**
	 * Format 2's attempt records move into the payload hashes bucket by bucket, each on
	 * the master that holds its slot (data format 3; FormatUpgradeIntegrationTests has
	 * the single-server case).
	 */
	@Test
	@Order(5)
	void attemptRecordsOfTheSecondFormatMoveOnEveryMaster() {
		KeySpace keys = new KeySpace("two", 16);
		long now = System.currentTimeMillis();
		long later = now + Duration.ofHours(1).toMillis();
		Set<Integer> buckets = new HashSet<>();
		try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
			RedisAdvancedClusterCommands<String, String> redis = connection.sync();
			for (int i = 0; i < 32; i++) {
				String jobKey = "t:r" + i;
				int bucket = keys.bucketOf(jobKey);
				buckets.add(bucket);
				String tag = keys.tag(bucket);
				redis.hset(tag + ":payload", jobKey, now + "|\"r" + i + "\"");
				redis.hset(tag + ":attempt", jobKey, "1|" + later + "|");
				redis.zadd(tag + ":due", later, jobKey);
				redis.hincrby(tag + ":count", "t", 1);
			}
			redis.hset("two:meta", Map.of("format", "2", "buckets", "16"));
		}
		Set<String> masters = new HashSet<>();
		for (int bucket : buckets) {
			masters.add(client.getPartitions().getPartitionBySlot(SlotHash.getSlot(keys.tag(bucket))).getNodeId());
		}
		assertThat(masters).as("the jobs' buckets are on every master").hasSize(3);

		try (Redeq redeq = Redeq.builder(client).prefix("two").buckets(16).migratorEnabled(false).build();
				StatefulRedisClusterConnection<String, String> connection = client.connect()) {
			for (int i = 0; i < 32; i++) {
				assertThat(redeq.client().find("t", "r" + i)).as("r" + i)
					.hasValueSatisfying((info) -> assertThat(info.attempts()).isEqualTo(1));
			}
			for (int bucket : buckets) {
				assertThat(connection.sync().exists(keys.tag(bucket) + ":attempt")).as("bucket " + bucket).isZero();
			}
			assertThat(connection.sync().hget("two:meta", "format")).isEqualTo("3");
			assertThat(redeq.admin().stats("t").delayed()).isEqualTo(32);
		}
	}

	/**
	 * A bulk cancel sends one script per bucket, each to the master of its slot, and a
	 * purge walks every bucket on its master.
	 */
	@Test
	@Order(6)
	void cancelAllAndPurgeReachEveryMaster() {
		try (Redeq redeq = Redeq.builder(client).prefix("bulk").buckets(16).migratorEnabled(false).build()) {
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < 2000; i++) {
				jobs.add(Job.builder("order.timeout").id("o-" + i).payload(i).delay(Duration.ofHours(1)).build());
			}
			redeq.client().scheduleAll(jobs);
			KeySpace keys = new KeySpace("bulk", 16);
			List<String> ids = new ArrayList<>();
			Set<Integer> masters = new HashSet<>();
			for (int i = 0; i < 1000; i++) {
				ids.add("o-" + i);
				masters.add(masterPortOf(keys, keys.bucketOf(KeySpace.jobKey("order.timeout", "o-" + i))));
			}
			ids.add("unknown");
			assertThat(masters).as("the ids' buckets are on every master").hasSize(3);

			assertThat(redeq.client().cancelAll("order.timeout", ids)).isEqualTo(1000);
			assertThat(redeq.client().find("order.timeout", "o-0")).isEmpty();
			assertThat(redeq.client().find("order.timeout", "o-1000")).isPresent();
			assertThat(redeq.admin().purge("order.timeout", JobState.DELAYED)).isEqualTo(1000);
			assertThat(redeq.admin().stats("order.timeout")).isEqualTo(new TopicStats("order.timeout", 0, 0, 0, 0));
		}
	}

	@Test
	@Order(7)
	void masterFailoverLosesNoJobAcknowledgedByAReplica() throws Exception {
		Set<String> acknowledged = ConcurrentHashMap.newKeySet();
		Map<String, AtomicInteger> delivered = new ConcurrentHashMap<>();
		AtomicInteger refused = new AtomicInteger();
		AtomicInteger afterLeaseExpiry = new AtomicInteger();
		// Leases of 20 s instead of 5 min: a job left IN_FLIGHT under a claim whose reply
		// the failover swallowed runs again within this test's wait (counted apart, not
		// as lost); losing a job still fails it.
		try (Redeq redeq = Redeq.builder(client)
			.prefix("dur")
			.buckets(16)
			.waitReplicas(1)
			.waitTimeout(Duration.ofSeconds(1))
			.commandTimeout(Duration.ofSeconds(3))
			.lockTtl(Duration.ofSeconds(2))
			.pollInterval(Duration.ofSeconds(1))
			.timeout(Duration.ofSeconds(20))
			.build()) {
			redeq.subscribe("dur", String.class, (payload, delivery) -> {
				if (delivery.attempt() > 1) {
					afterLeaseExpiry.incrementAndGet();
				}
				delivered.computeIfAbsent(delivery.id(), (id) -> new AtomicInteger()).incrementAndGet();
			}, SubscriptionOptions.builder().concurrency(4).build());
			AtomicBoolean producing = new AtomicBoolean(true);
			AtomicInteger sequence = new AtomicInteger();
			Thread producer = new Thread(() -> {
				while (producing.get()) {
					String id = "job-" + sequence.incrementAndGet();
					try {
						redeq.client()
							.schedule(Job.builder("dur").id(id).payload(id).delay(Duration.ofSeconds(2)).build());
						acknowledged.add(id);
					}
					catch (RedeqException ex) {
						// Not acknowledged: the caller knows, may retry.
						refused.incrementAndGet();
					}
				}
			}, "producer");
			producer.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= 1000);

			RedisServer victim = cluster.masters().get(0);
			int victimPort = victim.port();
			int acknowledgedBeforeKill = acknowledged.size();
			victim.kill();
			long killedAt = System.nanoTime();
			await().atMost(Duration.ofSeconds(30))
				.until(() -> cluster.masters().size() == 3
						&& cluster.masters().stream().noneMatch((m) -> m.port() == victimPort));
			cluster.awaitHealthy(Duration.ofSeconds(30));
			long failoverMillis = (System.nanoTime() - killedAt) / 1_000_000;

			// The old master comes back as the new master's replica: WAIT 1 can succeed
			// on every shard again.
			victim.start();
			cluster.awaitHealthy(Duration.ofSeconds(30));
			int before = acknowledged.size();
			await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= before + 500);
			producing.set(false);
			producer.join(10_000);

			await().atMost(Duration.ofSeconds(60))
				.untilAsserted(() -> assertThat(acknowledged.stream()
					.filter((id) -> !delivered.containsKey(id))
					.sorted()
					.limit(10)
					.map((id) -> id + ": "
							+ redeq.client().find("dur", id).map(Object::toString).orElse("not in Redis"))
					.toList()).as("acknowledged jobs not delivered (first 10, with their state in Redis)").isEmpty());
			long duplicates = delivered.values().stream().filter((n) -> n.get() > 1).count();
			System.out.printf("[cluster-failover] acknowledged=%d (before kill %d), refused while failing over=%d, "
					+ "delivered=%d, duplicates=%d, run again after their lease expired=%d, failover took %d ms%n",
					acknowledged.size(), acknowledgedBeforeKill, refused.get(), delivered.size(), duplicates,
					afterLeaseExpiry.get(), failoverMillis);
			assertThat(delivered.keySet()).containsAll(acknowledged);
		}
	}

}
