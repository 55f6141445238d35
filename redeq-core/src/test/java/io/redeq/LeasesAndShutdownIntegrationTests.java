package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;

import io.redeq.test.CommandStats;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leases and graceful shutdown: a slow handler keeps its job, a dead instance's job comes
 * back, closing hands unfinished jobs back at once, two instances share a topic without
 * doubling a job, and an idle engine leaves Redis alone.
 */
@RedisTest
class LeasesAndShutdownIntegrationTests {

	private static final SubscriptionOptions SHORT_LEASE = SubscriptionOptions.builder()
		.timeout(Duration.ofSeconds(30))
		.lease(Duration.ofMillis(600))
		.build();

	private final RedisClient lettuce;

	private final RedisServer server;

	LeasesAndShutdownIntegrationTests(RedisClient lettuce, RedisServer server) {
		this.lettuce = lettuce;
		this.server = server;
	}

	@Test
	void aHandlerRunningLongerThanItsLeaseKeepsItsJob() {
		Map<String, Integer> runs = new ConcurrentHashMap<>();
		try (Redeq first = engine("first"); Redeq second = engine("second")) {
			JobHandler<String> slow = (payload, delivery) -> {
				runs.merge(delivery.id() + "#" + delivery.attempt(), 1, Integer::sum);
				new CountDownLatch(1).await(3, TimeUnit.SECONDS); // three leases long
			};
			first.subscribe("slow", String.class, slow, SHORT_LEASE);
			second.subscribe("slow", String.class, slow, SHORT_LEASE);

			first.client().schedule(Job.builder("slow").id("s").payload("x").build());
			await().atMost(Duration.ofSeconds(5)).until(() -> runs.size() == 1);
			JobInfo running = first.client().find("slow", "s").orElseThrow();
			assertThat(running.state()).isEqualTo(JobState.IN_FLIGHT);
			assertThat(running.attempts()).isEqualTo(1);
			assertThat(first.client().cancel("slow", "s")).as("a running job cannot be cancelled").isFalse();

			await().atMost(Duration.ofSeconds(15)).until(() -> first.client().find("slow", "s").isEmpty());
			assertThat(runs).containsExactly(Map.entry("s#1", 1));
		}
	}

	@Test
	void aJobOfAnInstanceThatDiedIsCompletedByAnother() throws Exception {
		CountDownLatch claimed = new CountDownLatch(1);
		CountDownLatch never = new CountDownLatch(1);
		RedisClient doomedClient = RedisClient.create(this.server.uri());
		Redeq doomed = engine(doomedClient, "doomed");
		try {
			doomed.subscribe("work", String.class, (payload, delivery) -> {
				claimed.countDown();
				never.await();
			}, SHORT_LEASE);
			doomed.client().schedule(Job.builder("work").id("w").payload("x").build());
			assertThat(claimed.await(10, TimeUnit.SECONDS)).isTrue();
			// The instance dies: its connections drop and nothing is cleaned up
			// or handed back.
			doomedClient.shutdown(Duration.ZERO, Duration.ZERO);

			List<Delivery> completedElsewhere = new java.util.concurrent.CopyOnWriteArrayList<>();
			try (Redeq survivor = engine("survivor")) {
				survivor.subscribe("work", String.class, (payload, delivery) -> completedElsewhere.add(delivery),
						SHORT_LEASE);
				await().atMost(Duration.ofSeconds(15)).until(() -> completedElsewhere.size() == 1);
				assertThat(completedElsewhere.get(0).id()).isEqualTo("w");
				assertThat(completedElsewhere.get(0).attempt()).isEqualTo(2);
				await().atMost(Duration.ofSeconds(5)).until(() -> survivor.client().find("work", "w").isEmpty());
			}
		}
		finally {
			never.countDown();
			doomed.close();
		}
	}

	@Test
	void closingLetsRunningHandlersFinishAndHandsBackTheRestAtOnce() {
		Map<String, Integer> completed = new ConcurrentHashMap<>();
		CountDownLatch hangUntilClosed = new CountDownLatch(1);
		CountDownLatch slowGate = new CountDownLatch(1);
		AtomicInteger started = new AtomicInteger();
		Redeq redeq = Redeq.builder(this.lettuce).shutdownTimeout(Duration.ofSeconds(3)).build();
		Subscription subscription = redeq.subscribe("load", String.class, (kind, delivery) -> {
			started.incrementAndGet();
			if (kind.equals("hang")) {
				hangUntilClosed.await();
			}
			else if (kind.equals("slow")) {
				slowGate.await(); // still running when close begins, finishes within the
									// shutdown timeout
			}
			completed.merge(delivery.id(), 1, Integer::sum);
		}, SubscriptionOptions.builder().concurrency(4).timeout(Duration.ofMinutes(5)).build());
		List<Job> running = List.of(Job.builder("load").id("h0").payload("hang").build(),
				Job.builder("load").id("h1").payload("hang").build(),
				Job.builder("load").id("h2").payload("hang").build(),
				Job.builder("load").id("slow").payload("slow").build());
		redeq.client().scheduleAll(running);
		await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == 4);
		List<Job> waiting = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			waiting.add(Job.builder("load").id("w" + i).payload("quick").build());
		}
		redeq.client().scheduleAll(waiting);
		await().atMost(Duration.ofSeconds(5)).until(() -> redeq.admin().stats("load").ready() == 30);

		long closeStarted = System.nanoTime();
		Thread closer = new Thread(redeq::close);
		closer.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> !subscription.isRunning());
		slowGate.countDown();
		await().atMost(Duration.ofSeconds(10)).until(() -> !closer.isAlive());
		Duration closing = Duration.ofNanos(System.nanoTime() - closeStarted);
		hangUntilClosed.countDown();

		assertThat(closing).as("close waits the shutdown timeout at most").isLessThan(Duration.ofSeconds(5));
		assertThat(completed).as("the slow handler finished within the shutdown timeout").containsOnlyKeys("slow");
		try (Redeq observer = Redeq.builder(this.lettuce).migratorEnabled(false).build()) {
			assertThat(observer.admin().stats("load")).as("hung jobs READY at once, waiting ones untouched")
				.isEqualTo(new TopicStats("load", 0, 33, 0, 0));
			JobInfo handedBack = observer.client().find("load", "h0").orElseThrow();
			assertThat(handedBack.state()).isEqualTo(JobState.READY);
			assertThat(handedBack.attempts()).isEqualTo(1);
		}
		try (Redeq next = Redeq.builder(this.lettuce).build()) {
			next.subscribe("load", String.class, (kind, delivery) -> completed.merge(delivery.id(), 1, Integer::sum),
					SubscriptionOptions.builder().concurrency(4).build());
			await().atMost(Duration.ofSeconds(20)).until(() -> completed.size() == 34);
		}
	}

	@Test
	void closingHandsBackPrefetchedJobsAtOnceWhileTheRunningHandlerFinishes() {
		Map<String, Integer> ran = new ConcurrentHashMap<>();
		CountDownLatch slowGate = new CountDownLatch(1);
		Redeq redeq = Redeq.builder(this.lettuce).prefetch(2).shutdownTimeout(Duration.ofSeconds(10)).build();
		redeq.subscribe("pre", String.class, (kind, delivery) -> {
			ran.merge(delivery.id(), 1, Integer::sum);
			if (kind.equals("slow")) {
				slowGate.await();
			}
		}, SubscriptionOptions.builder().concurrency(1).timeout(Duration.ofMinutes(5)).build());
		// Quick handlers open the prefetch slots (their average, which a cold first run
		// may put far above 50 ms, is down again after a dozen).
		for (int i = 0; i < 12; i++) {
			redeq.client().schedule(Job.builder("pre").id("q" + i).payload("quick").build());
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> redeq.admin().stats("pre").pending() == 0);
		redeq.client().schedule(Job.builder("pre").id("slow").payload("slow").build());
		await().atMost(Duration.ofSeconds(10)).until(() -> ran.containsKey("slow"));
		redeq.client().schedule(Job.builder("pre").id("p0").payload("quick").build());
		redeq.client().schedule(Job.builder("pre").id("p1").payload("quick").build());
		// Claimed into the prefetch slots, leased, waiting for the busy handler.
		await().atMost(Duration.ofSeconds(10)).until(() -> redeq.admin().stats("pre").inFlight() == 3);

		Thread closer = new Thread(redeq::close);
		closer.start();
		try (Redeq observer = Redeq.builder(this.lettuce).migratorEnabled(false).build()) {
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(observer.admin().stats("pre").ready()).isEqualTo(2));
			assertThat(closer.isAlive()).as("close still waits for the running handler").isTrue();
			JobInfo handedBack = observer.client().find("pre", "p0").orElseThrow();
			assertThat(handedBack.state()).isEqualTo(JobState.READY);
			assertThat(handedBack.attempts()).as("a prefetched job that never ran gets its attempt back").isZero();
			slowGate.countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> !closer.isAlive());
			assertThat(observer.client().find("pre", "slow")).as("the running handler finished and completed")
				.isEmpty();
		}
		assertThat(ran).doesNotContainKeys("p0", "p1");
	}

	@Test
	void closingNeverHandsBackAJobWhoseHandlerStillRuns() throws Exception {
		CountDownLatch startedInA = new CountDownLatch(1);
		CountDownLatch letAFinish = new CountDownLatch(1);
		AtomicBoolean runningInA = new AtomicBoolean();
		AtomicInteger interruptsIgnored = new AtomicInteger();
		List<Delivery> startedInB = new CopyOnWriteArrayList<>();
		AtomicBoolean overlapped = new AtomicBoolean();
		// Long enough to outlast closing A (shutdown timeout, then the wait for the
		// interrupted handler): until it expires, the job is A's.
		SubscriptionOptions options = SubscriptionOptions.builder()
			.timeout(Duration.ofSeconds(30))
			.lease(Duration.ofSeconds(6))
			.build();
		Redeq a = Redeq.builder(this.lettuce)
			.instanceId("a")
			.lockTtl(Duration.ofSeconds(1))
			.shutdownTimeout(Duration.ofMillis(300))
			.build();
		try (Redeq b = engine("b")) {
			a.subscribe("stubborn", String.class, (payload, delivery) -> {
				runningInA.set(true);
				startedInA.countDown();
				boolean released = false;
				for (int i = 0; i < 300 && !released; i++) { // 30 s at most
					try {
						released = letAFinish.await(100, TimeUnit.MILLISECONDS);
					}
					catch (InterruptedException ex) {
						// A handler that ignores interruption.
						interruptsIgnored.incrementAndGet();
					}
				}
				runningInA.set(false);
			}, options);
			a.client().schedule(Job.builder("stubborn").id("s").payload("x").build());
			assertThat(startedInA.await(10, TimeUnit.SECONDS)).isTrue();
			b.subscribe("stubborn", String.class, (payload, delivery) -> {
				overlapped.compareAndSet(false, runningInA.get());
				startedInB.add(delivery);
			}, options);

			a.close();

			assertThat(interruptsIgnored.get()).as("interrupts the handler ignored").isPositive();
			assertThat(runningInA).as("A's handler still runs").isTrue();
			assertThat(startedInB).as("jobs B started while A's handler still ran").isEmpty();
			assertThat(b.client().find("stubborn", "s")).as("the job, still under A's claim")
				.hasValueSatisfying((job) -> {
					assertThat(job.state()).isEqualTo(JobState.IN_FLIGHT);
					assertThat(job.attempts()).isEqualTo(1);
				});

			letAFinish.countDown();
			// A's claim ends with its lease, not renewed since A closed; then B
			// runs the job.
			await().atMost(Duration.ofSeconds(20)).until(() -> startedInB.size() == 1);
			assertThat(overlapped).as("B started the job while A's handler still ran").isFalse();
			assertThat(startedInB.get(0).attempt()).isEqualTo(2);
			await().atMost(Duration.ofSeconds(5)).until(() -> b.client().find("stubborn", "s").isEmpty());
		}
		finally {
			letAFinish.countDown();
			a.close();
		}
	}

	@Test
	void twoInstancesOnOneTopicCompleteEveryJobExactlyOnce() {
		int total = 3000;
		Map<String, Integer> completions = new ConcurrentHashMap<>();
		try (Redeq first = engine("one"); Redeq second = engine("two")) {
			JobHandler<Integer> handler = (n, delivery) -> completions.merge(delivery.id(), 1, Integer::sum);
			first.subscribe("shared", Integer.class, handler, SubscriptionOptions.builder().concurrency(4).build());
			second.subscribe("shared", Integer.class, handler, SubscriptionOptions.builder().concurrency(4).build());
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < total; i++) {
				jobs.add(Job.builder("shared").id("s" + i).payload(i).delay(Duration.ofMillis(i % 500)).build());
			}
			first.client().scheduleAll(jobs);

			await().atMost(Duration.ofSeconds(30)).until(() -> completions.size() == total);
			await().atMost(Duration.ofSeconds(5)).until(() -> first.admin().stats("shared").pending() == 0);
		}
		assertThat(completions.values()).as("completions per job").containsOnly(1);
	}

	@Test
	void anIdleEngineWithFourListenersIssuesFewCommands() {
		try (Redeq redeq = Redeq.builder(this.lettuce).build()) {
			for (String topic : List.of("a", "b", "c", "d")) {
				redeq.subscribe(topic, String.class, (payload, delivery) -> {
				});
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> redeq.ownedBuckets().length == 16);
			long before = commandsSoFar();
			long scriptsBefore = CommandStats.scriptCalls(this.lettuce);
			long start = System.nanoTime();
			await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(6)).until(() -> true);
			double seconds = (System.nanoTime() - start) / 1e9;
			double perSecond = (commandsSoFar() - before) / seconds;
			double scriptsPerSecond = (CommandStats.scriptCalls(this.lettuce) - scriptsBefore) / seconds;

			// Generous bounds that catch a busy loop; W5 measures the real figures.
			// Commands inside scripts count here: the periodic look at each bucket's
			// earliest job (ZRANGE) and each bucket lock's renewal (GET, PEXPIRE) run
			// inside a few script calls a second.
			assertThat(scriptsPerSecond).as("script calls per second of an idle engine").isLessThan(10);
			assertThat(perSecond).as("Redis commands per second of an idle engine, inside scripts included")
				.isLessThan(200);
		}
	}

	/** Commands Redis served, less the ones this test's own reads of them cost. */
	private long commandsSoFar() {
		return CommandStats.calls(this.lettuce,
				(name) -> !name.equals("info") && !name.equals("hello") && !name.startsWith("client"));
	}

	private Redeq engine(String instanceId) {
		return engine(this.lettuce, instanceId);
	}

	private static Redeq engine(RedisClient client, String instanceId) {
		return Redeq.builder(client).instanceId(instanceId).lockTtl(Duration.ofSeconds(1)).build();
	}

}
