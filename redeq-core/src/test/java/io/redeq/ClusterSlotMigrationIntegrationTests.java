package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.ClusterClients;
import io.redeq.test.RedisCluster;
import io.redeq.test.RedisServer;
import io.redeq.test.SlotMigration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * Every job operation on a bucket whose cluster slot is caught in the middle of a move:
 * the slot is MIGRATING on its master and IMPORTING on the other, and only part of its
 * keys have been moved, the state {@code redis-cli --cluster
 * reshard} passes through for every slot it moves.
 *
 * <p>
 * Redis Cluster checks only a script's declared keys before it runs it. A key the script
 * builds itself, and that the migrating node does not hold, fails the script at that
 * command ("Script attempted to access a non local key in a cluster node"), and Redis
 * does not roll back what the script already wrote. On the importing node (after -ASK) an
 * undeclared key is created there even while the migrating node still holds it, so the
 * slot's data splits in two. Either way a job can end up READY in no ready list, DEAD in
 * no dead index, or in a list that the end of the move overwrites. A correct engine
 * declares every key, so Redis refuses the whole script (-TRYAGAIN or -ASK) before any
 * write, and its loops try again after the move.
 *
 * <p>
 * One engine on a two-master cluster; every job lives in one bucket. Before the slot is
 * opened each operation is set up (jobs running under a lease, READY jobs waiting, DEAD
 * jobs) so that its keys exist; then the slot is opened, one half of the bucket's keys is
 * moved ({@link MovedFirst}), every operation runs while the slot stays open, the move is
 * finished as {@code redis-cli --cluster fix} would, and every job is counted: each must
 * end exactly as its operation says, delivered the expected number of times, neither lost
 * nor doubled. Calls may throw while the slot is open, if they wrote nothing.
 */
class ClusterSlotMigrationIntegrationTests {

	private static final String PREFIX = "mig";

	private static final int BUCKETS = 16;

	/**
	 * How long the slot stays open while the engine works: several sweeps (0.5 s),
	 * backoffs (0.3 s) and fetch retries (1 s).
	 */
	private static final Duration WINDOW = Duration.ofSeconds(5);

	/**
	 * Delay of the jobs that become due while the slot is open: they are scheduled right
	 * before it opens, and the window lasts longer than this after that.
	 */
	private static final Duration DUE_IN = Duration.ofMillis(2500);

	/**
	 * Lease of the jobs whose outcome is stored while the slot is open: longer than the
	 * window (a correct engine may not renew it then), short enough that a job whose
	 * outcome Redis refused comes back soon after.
	 */
	private static final Duration SHORT_LEASE = Duration.ofSeconds(8);

	private static final List<String> TOPICS = List.of("far", "hold", "due", "sched", "claim", "release", "retry",
			"bury", "requeue");

	private RedisCluster cluster;

	private ClusterClients clients;

	private RedisClusterClient client;

	@BeforeEach
	void startCluster() {
		this.cluster = new RedisCluster().withMasters(2).withReplicasPerMaster(0).start();
		this.clients = new ClusterClients(this.cluster);
		this.client = this.clients.create(Duration.ofMillis(200));
	}

	@AfterEach
	void stopCluster() {
		if (this.clients != null) {
			this.clients.close();
		}
	}

	@ParameterizedTest(name = "{0} moved first")
	@EnumSource(MovedFirst.class)
	void everyOperationOnAHalfMovedBucketEndsExactlyOnce(MovedFirst movedFirst) throws Exception {
		long startedAt = System.nanoTime();
		KeySpace keys = new KeySpace(PREFIX, BUCKETS);
		int bucket = bucketAwayFromGlobalKeys(keys);
		int slot = SlotHash.getSlot(keys.tag(bucket));
		RedisServer source = this.cluster.masterOf(slot);
		RedisServer target = this.cluster.masters()
			.stream()
			.filter((master) -> master.port() != source.port())
			.findFirst()
			.orElseThrow();
		Ledger ledger = new Ledger();
		Map<String, Expected> expected = new LinkedHashMap<>();
		JobIds ids = new JobIds(keys, bucket);
		CountDownLatch slotOpen = new CountDownLatch(1);
		CountDownLatch holdReleased = new CountDownLatch(1);
		AtomicBoolean healed = new AtomicBoolean();
		List<String> problems = new ArrayList<>();

		try (Redeq redeq = Redeq.builder(this.client)
			.prefix(PREFIX)
			.buckets(BUCKETS)
			.lockTtl(Duration.ofSeconds(30))
			.sweepInterval(Duration.ofMillis(500))
			.timeout(Duration.ofMinutes(2))
			.maxAttempts(3)
			.backoff(new Backoff(Duration.ofMillis(300), 1.0, Duration.ofMillis(300), 0.0))
			.pollInterval(Duration.ofSeconds(1))
			.shutdownTimeout(Duration.ofMillis(500))
			.commandTimeout(Duration.ofSeconds(5))
			// Jobs must wait READY behind busy handlers while the slot
			// moves, not prefetched.
			.prefetch(0)
			.build()) {
			RedeqClient jobs = redeq.client();
			RedeqAdmin admin = redeq.admin();
			SubscriptionOptions shortLease = SubscriptionOptions.builder().concurrency(3).lease(SHORT_LEASE).build();

			// ---- before the slot opens: each operation's starting state, in one bucket

			// A delayed job far in the future: it must simply survive the move.
			String far = ids.next("far");
			jobs.schedule(job("far", far, Duration.ofHours(1)));
			expected.put(far, new Expected("far", far, 0, 0, JobState.DELAYED));

			// bury: one job dies before the slot opens (its dead index exists); three run
			// and fail their only attempt while it is open; two wait READY behind them.
			redeq.subscribe("bury", String.class, (payload, delivery) -> {
				ledger.delivered(delivery);
				if (!payload.equals("early")) {
					awaitLatch(slotOpen);
				}
				throw new IllegalStateException("bury fails on purpose");
			}, SubscriptionOptions.builder().concurrency(3).lease(SHORT_LEASE).maxAttempts(1).build());
			String buriedEarly = ids.next("bury");
			jobs.schedule(Job.builder("bury").id(buriedEarly).payload("early").build());
			await().atMost(Duration.ofSeconds(20)).until(() -> admin.stats("bury").dead() == 1);
			expectAll(expected, "bury", List.of(buriedEarly), 1, 0, JobState.DEAD);
			startRunning(jobs, ledger, ids, expected, "bury", 3, 1, 0, JobState.DEAD);
			waitReady(jobs, admin, ids, expected, "bury", 2, 1, 0, JobState.DEAD);

			// retry: three fail their first attempt while the slot is open, then succeed;
			// two wait READY behind them and do the same after the move.
			redeq.subscribe("retry", String.class, (payload, delivery) -> {
				ledger.delivered(delivery);
				if (delivery.attempt() == 1) {
					awaitLatch(slotOpen);
					throw new IllegalStateException("first attempt fails on purpose");
				}
				ledger.completed(delivery);
			}, shortLease);
			startRunning(jobs, ledger, ids, expected, "retry", 3, 2, 1, null);
			waitReady(jobs, admin, ids, expected, "retry", 2, 2, 1, null);

			// release: three run until their subscription is closed while the slot is
			// open; they go back to READY and run again after the move.
			Subscription releasing = redeq.subscribe("release", String.class, (payload, delivery) -> {
				ledger.delivered(delivery);
				awaitLatch(new CountDownLatch(1)); // runs until close interrupts it
			}, shortLease);
			startRunning(jobs, ledger, ids, expected, "release", 3, 2, 1, null);
			waitReady(jobs, admin, ids, expected, "release", 2, 1, 1, null);

			// requeue: four die before the slot opens and are requeued while it is open.
			Subscription dying = redeq.subscribe("requeue", String.class, (payload, delivery) -> {
				ledger.delivered(delivery);
				if (!healed.get()) {
					throw new IllegalStateException("not healed yet");
				}
				ledger.completed(delivery);
			}, SubscriptionOptions.builder().concurrency(4).maxAttempts(1).build());
			List<String> requeued = schedule(jobs, ids, "requeue", 4, Duration.ZERO);
			await().atMost(Duration.ofSeconds(20)).until(() -> admin.stats("requeue").dead() == 4);
			dying.close();
			expectAll(expected, "requeue", requeued, 2, 1, null);
			waitReady(jobs, admin, ids, expected, "requeue", 1, 1, 1, null);

			// hold: one long handler keeps a job in flight across the whole move.
			redeq.subscribe("hold", String.class, (payload, delivery) -> {
				ledger.delivered(delivery);
				awaitLatch(holdReleased);
				ledger.completed(delivery);
			});
			startRunning(jobs, ledger, ids, expected, "hold", 1, 1, 1, null);

			// claim: READY jobs with no consumer yet; one subscribes while the
			// slot is open.
			waitReady(jobs, admin, ids, expected, "claim", 6, 1, 1, null);

			// sched: two READY already; six are scheduled while the slot is open.
			waitReady(jobs, admin, ids, expected, "sched", 2, 1, 1, null);

			// due: two READY already; six become due while the slot is open (scheduled
			// right before it opens, and due well inside the window).
			waitReady(jobs, admin, ids, expected, "due", 2, 1, 1, null);
			List<String> due = schedule(jobs, ids, "due", 6, DUE_IN);
			expectAll(expected, "due", due, 1, 1, null);
			for (String id : due) {
				assertThat(jobs.find("due", id)).as("due job %s right before the slot opens", id)
					.hasValueSatisfying((info) -> assertThat(info.state()).isEqualTo(JobState.DELAYED));
			}
			long setUpMillis = (System.nanoTime() - startedAt) / 1_000_000;

			// ---- the slot opens and half of its keys move

			SlotMigration migration = this.cluster.openSlotMigration(slot, target);
			List<String> before = migration.keysOn(source);
			List<String> topicKeys = before.stream().filter(ClusterSlotMigrationIntegrationTests::isTopicKey).toList();
			List<String> bucketKeys = before.stream().filter((key) -> !isTopicKey(key)).toList();
			if (topicKeys.isEmpty() || bucketKeys.isEmpty()) {
				// A key layout that names no key after its topic: split the slot's keys
				// in two halves by name instead; the point is that some, not all, move.
				List<String> sorted = before.stream().sorted().toList();
				topicKeys = sorted.subList(0, sorted.size() / 2);
				bucketKeys = sorted.subList(sorted.size() / 2, sorted.size());
			}
			assertThat(topicKeys).as("keys of bucket %d to move first", bucket).isNotEmpty();
			assertThat(bucketKeys).as("keys of bucket %d to leave for last", bucket).isNotEmpty();
			migration.migrate(switch (movedFirst) {
				case TOPIC_KEYS -> topicKeys;
				case BUCKET_KEYS -> bucketKeys;
				case ONE_BUCKET_KEY -> bucketKeys.stream().sorted().limit(1).toList();
			});
			System.out.printf(
					"[slot-migration] %s: bucket %d, slot %d MIGRATING %s -> %s; on the target: %s; "
							+ "still on the source: %s%n",
					movedFirst, bucket, slot, source, target, new TreeSet<>(migration.keysOn(target)),
					new TreeSet<>(migration.keysOn(source)));
			// ---- every operation while the slot is open

			// Sent side by side: a refused call waits out the command timeout, and one
			// after the other they kept the slot open for most of a minute.
			Map<String, String> refusedSchedules = refusals(ids.next("sched", 6), (id) -> {
				jobs.schedule(job("sched", id, Duration.ofMillis(200)));
				return null;
			});
			refusedSchedules.forEach((id, refusal) -> expected.put(id,
					(refusal != null) ? new Expected("sched", id, 0, 0, null) : new Expected("sched", id, 1, 1, null)));
			refusedSchedules.values().removeIf(Objects::isNull);
			healed.set(true);
			Map<String, String> refusedRequeues = refusals(requeued,
					(id) -> admin.requeueDead("requeue", id) ? null : "requeueDead returned false");
			refusedRequeues.values().removeIf(Objects::isNull);
			Subscription claiming = completing(redeq, ledger, "claim");
			Subscription migrated = completing(redeq, ledger, "due");
			Subscription scheduled = completing(redeq, ledger, "sched");
			slotOpen.countDown(); // retry and bury handlers fail now
			releasing.close();
			// A correct engine makes no progress on this bucket while the slot is open
			// (it must refuse before writing), so there is no condition to wait for: the
			// slot stays open for a fixed stretch, and nothing may close it meanwhile.
			await().during(WINDOW).atMost(WINDOW.plusSeconds(5)).until(migration::isOpen);

			// ---- the move finishes, as redis-cli --cluster fix --cluster-replace would

			long slotClosedMillis = (System.nanoTime() - startedAt) / 1_000_000;
			List<String> onBothNodes = migration.finish(true);
			if (!onBothNodes.isEmpty()) {
				problems.add("keys written on the importing node while the migrating node still held them "
						+ "(the move could only finish by overwriting one copy): " + onBothNodes);
			}
			assertThat(this.cluster.masterOf(slot)).isEqualTo(target);
			holdReleased.countDown();
			completing(redeq, ledger, "release");
			for (Map.Entry<String, String> refused : refusedRequeues.entrySet()) {
				Optional<JobInfo> info = jobs.find("requeue", refused.getKey());
				if (info.isEmpty() || info.get().state() != JobState.DEAD) {
					problems.add("requeue/" + refused.getKey() + ": requeueDead failed while the slot was open ("
							+ refused.getValue() + ") but left the job " + describe(info) + ", not DEAD");
				}
				else if (!admin.requeueDead("requeue", refused.getKey())) {
					problems.add("requeue/" + refused.getKey() + ": requeueDead after the move returned false");
				}
			}
			completing(redeq, ledger, "requeue");

			// ---- every job ends as its operation says

			try {
				await().atMost(Duration.ofSeconds(30))
					.pollInterval(Duration.ofMillis(500))
					.until(() -> problems(jobs, admin, ledger, expected).isEmpty());
			}
			catch (ConditionTimeoutException ex) {
				// reported below with every job that is wrong
			}
			problems.addAll(problems(jobs, admin, ledger, expected));
			System.out.printf(
					"[slot-migration] %s: %d jobs, %d refused schedules %s, %d refused requeues %s; set up in %d ms, "
							+ "slot closed at %d ms, checked at %d ms%n%s%n",
					movedFirst, expected.size(), refusedSchedules.size(), refusedSchedules, refusedRequeues.size(),
					refusedRequeues, setUpMillis, slotClosedMillis, (System.nanoTime() - startedAt) / 1_000_000,
					summary(jobs, ledger, expected));
			claiming.close();
			migrated.close();
			scheduled.close();
		}
		if (!problems.isEmpty()) {
			fail(problems.size() + " problems after operations on a half-moved slot (" + movedFirst
					+ " moved first):\n  " + String.join("\n  ", problems));
		}
	}

	// ---- what every job must end as

	/**
	 * Every mismatch between what happened and what was expected; empty when all is well.
	 */
	private static List<String> problems(RedeqClient jobs, RedeqAdmin admin, Ledger ledger,
			Map<String, Expected> expected) {
		List<String> problems = new ArrayList<>();
		for (Expected job : expected.values()) {
			int delivered = ledger.deliveries(job.topic(), job.id());
			int completed = ledger.completions(job.topic(), job.id());
			Optional<JobInfo> info = jobs.find(job.topic(), job.id());
			JobState state = info.map(JobInfo::state).orElse(null);
			if (delivered != job.deliveries() || completed != job.completions() || state != job.state()) {
				problems.add(job.topic() + "/" + job.id() + ": delivered " + delivered + "x (expected "
						+ job.deliveries() + "), completed " + completed + "x (expected " + job.completions()
						+ "), now " + describe(info) + " (expected "
						+ ((job.state() != null) ? job.state() : "finished") + ")");
			}
		}
		for (String topic : TOPICS) {
			Map<JobState, Long> states = expected.values()
				.stream()
				.filter((job) -> job.topic().equals(topic) && job.state() != null)
				.collect(Collectors.groupingBy(Expected::state, Collectors.counting()));
			TopicStats wanted = new TopicStats(topic, states.getOrDefault(JobState.DELAYED, 0L), 0, 0,
					states.getOrDefault(JobState.DEAD, 0L));
			TopicStats stats = admin.stats(topic);
			if (!stats.equals(wanted)) {
				problems.add(topic + ": stats " + stats + ", expected " + wanted);
			}
			Set<String> deadIds = admin.deadJobs(topic, 0, 100)
				.stream()
				.map(DeadJob::id)
				.collect(Collectors.toCollection(TreeSet::new));
			Set<String> wantedDead = expected.values()
				.stream()
				.filter((job) -> job.topic().equals(topic) && job.state() == JobState.DEAD)
				.map(Expected::id)
				.collect(Collectors.toCollection(TreeSet::new));
			if (!deadIds.equals(wantedDead)) {
				problems.add(topic + ": deadJobs lists " + deadIds + ", expected " + wantedDead);
			}
		}
		return problems;
	}

	/** Per topic: jobs, as expected, lost (never finished as expected), doubled. */
	private static String summary(RedeqClient jobs, Ledger ledger, Map<String, Expected> expected) {
		StringBuilder summary = new StringBuilder();
		for (String topic : TOPICS) {
			int total = 0;
			int ok = 0;
			int lost = 0;
			int doubled = 0;
			for (Expected job : expected.values()) {
				if (!job.topic().equals(topic)) {
					continue;
				}
				total++;
				int delivered = ledger.deliveries(topic, job.id());
				int completed = ledger.completions(topic, job.id());
				JobState state = jobs.find(topic, job.id()).map(JobInfo::state).orElse(null);
				if (delivered > job.deliveries() || completed > job.completions()) {
					doubled++;
				}
				else if (completed < job.completions() || state != job.state()) {
					lost++;
				}
				else if (delivered == job.deliveries()) {
					ok++;
				}
			}
			summary.append(String.format("  %-8s jobs=%d as-expected=%d lost-or-stuck=%d doubled=%d%n", topic, total,
					ok, lost, doubled));
		}
		return summary.toString();
	}

	private static String describe(Optional<JobInfo> info) {
		return info.map((job) -> job.state() + " (attempts " + job.attempts() + ")").orElse("not found");
	}

	/**
	 * Runs {@code call} for every id at once, each on a thread of its own, and returns
	 * per id, in id order, what refused it: the exception's message, what the call
	 * returned, or null where it succeeded.
	 */
	private static Map<String, String> refusals(List<String> ids, Function<String, String> call) throws Exception {
		ExecutorService callers = Executors.newFixedThreadPool(ids.size());
		try {
			Map<String, Future<String>> calls = new LinkedHashMap<>();
			for (String id : ids) {
				calls.put(id, callers.submit(() -> {
					try {
						return call.apply(id);
					}
					catch (RedeqException ex) {
						return ex.getMessage();
					}
				}));
			}
			Map<String, String> refused = new TreeMap<>();
			for (Map.Entry<String, Future<String>> entry : calls.entrySet()) {
				refused.put(entry.getKey(), entry.getValue().get(60, TimeUnit.SECONDS));
			}
			return refused;
		}
		finally {
			callers.shutdownNow();
		}
	}

	private static void expectAll(Map<String, Expected> expected, String topic, List<String> ids, int deliveries,
			int completions, JobState state) {
		for (String id : ids) {
			expected.put(id, new Expected(topic, id, deliveries, completions, state));
		}
	}

	// ---- setting up

	/** Schedules n jobs and waits until their handlers run. */
	private static void startRunning(RedeqClient jobs, Ledger ledger, JobIds ids, Map<String, Expected> expected,
			String topic, int n, int deliveries, int completions, JobState state) {
		int before = ledger.deliveries(topic);
		List<String> started = schedule(jobs, ids, topic, n, Duration.ZERO);
		await().atMost(Duration.ofSeconds(20)).until(() -> ledger.deliveries(topic) == before + n);
		expectAll(expected, topic, started, deliveries, completions, state);
	}

	/** Schedules n jobs and waits until they are READY (the migrator moved them). */
	private static void waitReady(RedeqClient jobs, RedeqAdmin admin, JobIds ids, Map<String, Expected> expected,
			String topic, int n, int deliveries, int completions, JobState state) {
		long before = admin.stats(topic).ready();
		List<String> ready = schedule(jobs, ids, topic, n, Duration.ZERO);
		await().atMost(Duration.ofSeconds(20)).until(() -> admin.stats(topic).ready() == before + n);
		expectAll(expected, topic, ready, deliveries, completions, state);
	}

	private static List<String> schedule(RedeqClient jobs, JobIds ids, String topic, int n, Duration delay) {
		List<String> scheduled = ids.next(topic, n);
		for (String id : scheduled) {
			jobs.schedule(job(topic, id, delay));
		}
		return scheduled;
	}

	private static Job job(String topic, String id, Duration delay) {
		return Job.builder(topic).id(id).payload(id).delay(delay).build();
	}

	private static Subscription completing(Redeq redeq, Ledger ledger, String topic) {
		return redeq.subscribe(topic, String.class, (payload, delivery) -> {
			ledger.delivered(delivery);
			ledger.completed(delivery);
		}, SubscriptionOptions.builder().concurrency(4).build());
	}

	private static void awaitLatch(CountDownLatch latch) throws InterruptedException {
		if (!latch.await(2, TimeUnit.MINUTES)) {
			throw new IllegalStateException("latch not released within 2 minutes");
		}
	}

	/**
	 * Whether a key of the bucket belongs to one topic (its name ends with the topic),
	 * such as a ready list or a per-topic dead index; the others are the bucket's own.
	 */
	private static boolean isTopicKey(String key) {
		return TOPICS.stream().anyMatch((topic) -> key.endsWith(":" + topic));
	}

	/**
	 * A bucket whose slot holds none of the prefix's global keys (meta, instances, signal
	 * lists), so that moving it moves only the bucket.
	 */
	private static int bucketAwayFromGlobalKeys(KeySpace keys) {
		Set<Integer> globalSlots = new TreeSet<>();
		globalSlots.add(SlotHash.getSlot(PREFIX + ":meta"));
		globalSlots.add(SlotHash.getSlot(PREFIX + ":instances"));
		TOPICS.forEach((topic) -> globalSlots.add(SlotHash.getSlot(keys.signalKey(topic))));
		for (int b = 0; b < keys.buckets(); b++) {
			if (!globalSlots.contains(SlotHash.getSlot(keys.tag(b)))) {
				return b;
			}
		}
		throw new IllegalStateException("every bucket shares a slot with a global key");
	}

	// ---- types: the test's parameter, its expectations and its bookkeeping

	/**
	 * Which half of the bucket's keys {@code MIGRATE} moves before the operations run.
	 */
	enum MovedFirst {

		/**
		 * The per-topic keys (ready lists, per-topic dead indexes) are on the importing
		 * node, the bucket-wide keys still on the migrating node: scripts run on the
		 * migrating node and fail at the first per-topic key.
		 */
		TOPIC_KEYS,

		/**
		 * The bucket-wide keys are on the importing node, the per-topic keys still on the
		 * migrating node: scripts are sent to the importing node, which creates a second
		 * copy of each per-topic key they write.
		 */
		BUCKET_KEYS,

		/**
		 * One bucket-wide key is on the importing node: every script, which declares all
		 * bucket-wide keys, is refused with -TRYAGAIN before it writes anything, as a
		 * correct engine's scripts must be whichever keys have moved. The control case:
		 * it shows that every expectation here is met by an engine that is refused while
		 * the slot is open and tries again after the move.
		 */
		ONE_BUCKET_KEY

	}

	/**
	 * What must become of one job: handler calls, handler calls that returned normally,
	 * and its state in the end ({@code null} = finished, so not found).
	 */
	record Expected(String topic, String id, int deliveries, int completions, JobState state) {
	}

	/** Ids of one topic whose jobs land in one bucket. */
	static final class JobIds {

		private final KeySpace keys;

		private final int bucket;

		private final Map<String, AtomicInteger> counters = new ConcurrentHashMap<>();

		JobIds(KeySpace keys, int bucket) {
			this.keys = keys;
			this.bucket = bucket;
		}

		String next(String topic) {
			AtomicInteger counter = this.counters.computeIfAbsent(topic, (t) -> new AtomicInteger());
			for (int tries = 0; tries < 100_000; tries++) {
				String id = topic + "-" + counter.getAndIncrement();
				if (this.keys.bucketOf(KeySpace.jobKey(topic, id)) == this.bucket) {
					return id;
				}
			}
			throw new IllegalStateException("no id of topic " + topic + " in bucket " + this.bucket);
		}

		List<String> next(String topic, int n) {
			List<String> ids = new ArrayList<>();
			for (int i = 0; i < n; i++) {
				ids.add(next(topic));
			}
			return ids;
		}

	}

	/** Every handler call, and every one that returned normally, per job. */
	static final class Ledger {

		private final Map<String, List<Integer>> deliveries = new ConcurrentHashMap<>();

		private final Map<String, AtomicInteger> completions = new ConcurrentHashMap<>();

		void delivered(Delivery delivery) {
			this.deliveries
				.computeIfAbsent(KeySpace.jobKey(delivery.topic(), delivery.id()),
						(key) -> Collections.synchronizedList(new ArrayList<>()))
				.add(delivery.attempt());
		}

		void completed(Delivery delivery) {
			this.completions
				.computeIfAbsent(KeySpace.jobKey(delivery.topic(), delivery.id()), (key) -> new AtomicInteger())
				.incrementAndGet();
		}

		int deliveries(String topic, String id) {
			List<Integer> attempts = this.deliveries.get(KeySpace.jobKey(topic, id));
			return (attempts != null) ? attempts.size() : 0;
		}

		int deliveries(String topic) {
			return this.deliveries.entrySet()
				.stream()
				.filter((entry) -> entry.getKey().startsWith(topic + ":"))
				.mapToInt((entry) -> entry.getValue().size())
				.sum();
		}

		int completions(String topic, String id) {
			AtomicInteger count = this.completions.get(KeySpace.jobKey(topic, id));
			return (count != null) ? count.get() : 0;
		}

	}

}
