package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedeqAdmin#changeBucketCount(int)} while two instances run, produce and consume:
 * the count is doubled and then halved with jobs delayed, ready and running, a producer
 * scheduling all the while (its calls go on while the change runs), a cancel and a
 * reschedule during each change (they wait for it to end), and a recurring job ticking.
 * Every accepted job runs exactly once, the cancelled one never, the rescheduled one at
 * its new time; nothing is left in a bucket the new layout does not use; both instances
 * end on the new count without a restart, and an instance started afterwards with the old
 * count follows the recorded one.
 */
@RedisTest
class OnlineBucketCountChangeIntegrationTests {

	private static final String PREFIX = "online";

	private static final String TOPIC = "work";

	private static final int WAITING = 300;

	private static final int RUNNING = 8;

	private final RedisClient lettuce;

	/** Job id to how many times a handler ran it. */
	private final Map<String, Integer> runs = new ConcurrentHashMap<>();

	private final Set<String> accepted = ConcurrentHashMap.newKeySet();

	private final List<Throwable> producerErrors = new CopyOnWriteArrayList<>();

	/** Single schedule calls that returned. */
	private final AtomicInteger produced = new AtomicInteger();

	private final List<Redeq> engines = new ArrayList<>();

	private final ExecutorService producers = Executors.newFixedThreadPool(2);

	/** Released once the change under test has begun: what the slow jobs wait for. */
	private volatile CountDownLatch changeBegun = new CountDownLatch(1);

	OnlineBucketCountChangeIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@AfterEach
	void stop() throws InterruptedException {
		this.producers.shutdownNow();
		this.producers.awaitTermination(10, TimeUnit.SECONDS);
		this.engines.forEach(Redeq::close);
	}

	@Test
	void nothingIsLostOrRunTwiceWhileTheCountIsDoubledAndHalvedBesideRunningInstances() throws Exception {
		Redeq a = engine("a", 4);
		Redeq b = engine("b", 4);
		// A recurring job's occurrences share its id: told apart by their due time.
		Map<Long, Integer> ticks = new ConcurrentHashMap<>();
		for (Redeq engine : List.of(a, b)) {
			engine.subscribe(TOPIC, String.class, (payload, delivery) -> {
				if (payload.startsWith("slow")) {
					// Still running when the change begins: the change waits for it.
					this.changeBegun.await(20, TimeUnit.SECONDS);
				}
				this.runs.merge(delivery.id(), 1, Integer::sum);
			}, SubscriptionOptions.builder().concurrency(4).build());
			engine.subscribe("tick", String.class,
					(payload, delivery) -> ticks.merge(delivery.dueAt().toEpochMilli(), 1, Integer::sum));
		}
		a.client().scheduleRecurring(Recurring.builder("tick").id("every-second").every(Duration.ofSeconds(1)).build());

		for (int[] change : new int[][] { { 4, 8 }, { 8, 4 } }) {
			int from = change[0];
			int to = change[1];
			String round = "r" + to + "-";
			CountDownLatch begun = new CountDownLatch(1);
			this.changeBegun = begun;
			schedule(a, round + "slow", RUNNING, Duration.ZERO, "slow");
			await().atMost(Duration.ofSeconds(10)).until(() -> a.admin().stats(TOPIC).inFlight() >= RUNNING / 2);
			schedule(b, round + "later", WAITING, Duration.ofMillis(1500), "later");
			schedule(a, round + "ready", WAITING, Duration.ZERO, "ready");
			String cancelled = round + "later-7";
			String moved = round + "later-8";
			AtomicBoolean changing = new AtomicBoolean(true);
			Future<?> producer = this.producers.submit(() -> produceWhile(b, round + "during", changing));
			Future<List<Boolean>> duringChange = this.producers.submit(() -> {
				await().atMost(Duration.ofSeconds(10)).until(() -> changingTo() != null);
				// The change waits for the slow jobs, which wait for this: producers
				// go on while it runs.
				int before = this.produced.get();
				await().atMost(Duration.ofSeconds(15)).until(() -> this.produced.get() >= before + 20);
				assertThat(changingTo()).as("still changing").isNotNull();
				begun.countDown();
				// Both wait for the change to end, then run on the new layout.
				return List.of(a.client().cancel(TOPIC, cancelled),
						b.client().reschedule(TOPIC, moved, Duration.ofMillis(200)));
			});

			Redeq changer = (to > from) ? a : b;
			changer.admin().changeBucketCount(to);
			changing.set(false);
			producer.get(30, TimeUnit.SECONDS);
			assertThat(duringChange.get(30, TimeUnit.SECONDS)).as("cancelled, rescheduled").containsExactly(true, true);
			this.accepted.remove(cancelled);

			await().atMost(Duration.ofSeconds(30)).until(() -> this.runs.keySet().containsAll(this.accepted));
			await().atMost(Duration.ofSeconds(10)).until(() -> a.admin().stats(TOPIC).pending() == 0);
			assertThat(this.producerErrors).isEmpty();
			assertThat(this.runs).doesNotContainKey(cancelled);
			assertThat(this.runs.keySet()).containsExactlyInAnyOrderElementsOf(this.accepted);
			assertThat(this.runs.values()).as("each job ran once").allSatisfy((count) -> assertThat(count).isOne());
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(owned(a, b)).containsExactlyElementsOf(buckets(to)));
			assertThat(a.admin().recurring()).extracting(RecurringInfo::id).containsExactly("every-second");
			assertThat(leftOutsideLayout(to)).as("keys of buckets the new layout does not use").isEmpty();
		}
		int ticked = ticks.size();
		await().atMost(Duration.ofSeconds(10)).until(() -> ticks.size() > ticked + 1);
		assertThat(ticks.values()).as("each tick ran once").allSatisfy((count) -> assertThat(count).isOne());
	}

	@Test
	void anInstanceStartedAfterAChangeWithTheOldCountFollowsTheRecordedOne() {
		Redeq first = engine("first", 4);
		first.admin().changeBucketCount(16);
		Redeq late = engine("late", 4);
		assertThat(late.options().buckets()).isEqualTo(16);
		late.subscribe(TOPIC, String.class, (payload, delivery) -> this.runs.merge(delivery.id(), 1, Integer::sum));
		schedule(first, "after", 50, Duration.ZERO, "x");
		await().atMost(Duration.ofSeconds(10)).until(() -> this.runs.keySet().containsAll(this.accepted));
		assertThat(this.runs.values()).allSatisfy((count) -> assertThat(count).isOne());
	}

	private Redeq engine(String id, int buckets) {
		Redeq engine = Redeq.builder(this.lettuce)
			.prefix(PREFIX)
			.buckets(buckets)
			.instanceId(id)
			.sweepInterval(Duration.ofMillis(200))
			.lockTtl(Duration.ofSeconds(2))
			.build();
		this.engines.add(engine);
		return engine;
	}

	private void schedule(Redeq engine, String prefix, int count, Duration delay, String payload) {
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			jobs.add(Job.builder(TOPIC).id(prefix + "-" + i).payload(payload).delay(delay).build());
		}
		this.accepted.addAll(engine.client().scheduleAll(jobs));
	}

	/** Single schedule calls, one after the other, until the change returned. */
	private void produceWhile(Redeq engine, String prefix, AtomicBoolean changing) {
		for (int i = 0; i < 100_000 && changing.get(); i++) {
			try {
				this.accepted
					.add(engine.client().schedule(Job.builder(TOPIC).id(prefix + "-" + i).payload("p").build()));
				this.produced.incrementAndGet();
			}
			catch (RuntimeException ex) {
				this.producerErrors.add(ex);
				return;
			}
		}
	}

	private String changingTo() {
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			return connection.sync().hget(PREFIX + ":meta", "buckets-changing-to");
		}
	}

	private static List<Integer> buckets(int count) {
		return IntStream.range(0, count).boxed().toList();
	}

	private static List<Integer> owned(Redeq... engines) {
		List<Integer> owned = new ArrayList<>();
		for (Redeq engine : engines) {
			for (int bucket : engine.ownedBuckets()) {
				owned.add(bucket);
			}
		}
		owned.sort(null);
		return owned;
	}

	/**
	 * Keys of the prefix's buckets that hold jobs but whose tag the layout of
	 * {@code buckets} does not use.
	 */
	private List<String> leftOutsideLayout(int buckets) {
		Set<String> tags = ConcurrentHashMap.newKeySet();
		for (int b = 0; b < buckets; b++) {
			tags.add(new KeySpace(PREFIX, buckets).tag(b));
		}
		List<String> left = new ArrayList<>();
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			for (String key : connection.sync().keys("{" + PREFIX + ":*")) {
				String tag = key.substring(0, key.indexOf('}') + 1);
				boolean jobs = key.endsWith(":payload") || key.endsWith(":due") || key.endsWith(":lease")
						|| key.contains(":ready:");
				if (jobs && !tags.contains(tag)) {
					left.add(key);
				}
			}
		}
		return left;
	}

}
