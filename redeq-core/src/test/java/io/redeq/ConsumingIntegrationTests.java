package io.redeq;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Delivery with typed payloads, concurrency, retries, dead letters, poison jobs and
 * timeouts.
 */
@RedisTest
class ConsumingIntegrationTests {

	private final RedisClient lettuce;

	private Redeq redeq;

	ConsumingIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		this.redeq = Redeq.builder(this.lettuce)
			.backoff(new Backoff(Duration.ofMillis(50), 2.0, Duration.ofSeconds(1), 0.0))
			.build();
	}

	@AfterEach
	void stop() {
		this.redeq.close();
	}

	@Test
	void deliversTypedPayloadsWithTheirDelivery() throws Exception {
		List<Object> received = new CopyOnWriteArrayList<>();
		List<Delivery> deliveries = new CopyOnWriteArrayList<>();
		this.redeq.subscribe("records", Item.class, (item, delivery) -> {
			received.add(item);
			deliveries.add(delivery);
		});
		this.redeq.subscribe("strings", String.class, (text, delivery) -> received.add(text));
		this.redeq.subscribe("bytes", byte[].class, (bytes, delivery) -> received.add(new String(bytes)));
		Type listOfItems = ItemList.class.getGenericSuperclass();
		this.redeq.<List<Item>>subscribe("lists",
				((java.lang.reflect.ParameterizedType) listOfItems).getActualTypeArguments()[0],
				(items, delivery) -> received.add(items.get(1)));

		RedeqClient client = this.redeq.client();
		String id = client.schedule("records", new Item("apple", 3), Duration.ofMillis(100));
		// Multi-byte characters and a surrogate pair: redeq's codec sizes every
		// argument itself (ExactUtf8Codec).
		String text = "hello caf\u00e9 \u4e2d\u6587 \ud83d\ude00";
		client.schedule("strings", text, Duration.ZERO);
		client.schedule("bytes", "raw".getBytes(), Duration.ZERO);
		client.schedule("lists", List.of(new Item("a", 1), new Item("b", 2)), Duration.ZERO);

		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 4);
		assertThat(received).containsExactlyInAnyOrder(new Item("apple", 3), text, "raw", new Item("b", 2));
		Delivery delivery = deliveries.get(0);
		assertThat(delivery.id()).isEqualTo(id);
		assertThat(delivery.topic()).isEqualTo("records");
		assertThat(delivery.attempt()).isEqualTo(1);
		assertThat(delivery.dueAt()).isAfter(delivery.createdAt());
		await().atMost(Duration.ofSeconds(5)).until(() -> this.redeq.admin().stats("records").pending() == 0);
		assertThat(this.redeq.client().find("records", id)).isEmpty();
	}

	@Test
	void neverRunsMoreHandlersThanItsConcurrency() {
		AtomicInteger active = new AtomicInteger();
		AtomicInteger peak = new AtomicInteger();
		Set<String> done = ConcurrentHashMap.newKeySet();
		this.redeq.subscribe("work", Integer.class, (n, delivery) -> {
			int now = active.incrementAndGet();
			peak.accumulateAndGet(now, Math::max);
			Thread.onSpinWait();
			for (long until = System.nanoTime() + 5_000_000; System.nanoTime() < until;) {
				Thread.onSpinWait();
			}
			active.decrementAndGet();
			done.add(delivery.id());
		}, SubscriptionOptions.builder().concurrency(3).build());
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			jobs.add(Job.builder("work").payload(i).build());
		}
		this.redeq.client().scheduleAll(jobs);

		await().atMost(Duration.ofSeconds(20)).until(() -> done.size() == 200);
		assertThat(peak.get()).isEqualTo(3);
	}

	@Test
	void aClaimFailingInOneBucketNeverLetsMoreHandlersRunThanTheConcurrency() throws Exception {
		// One job in a bucket the fetcher visits before a broken one, four after it: the
		// first fetch round starts one job, then its claim in the broken bucket fails.
		KeySpace keys = new KeySpace(this.redeq.options().prefix(), this.redeq.options().buckets());
		int broken = keys.buckets() / 2;
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 1000 && jobs.size() < 5; i++) {
			int bucket = keys.bucketOf(KeySpace.jobKey("capped", "c" + i));
			boolean wanted = (jobs.isEmpty()) ? bucket < broken : bucket > broken;
			if (wanted) {
				jobs.add(Job.builder("capped").id("c" + i).payload(i).build());
			}
		}
		assertThat(jobs).hasSize(5);
		this.redeq.client().scheduleAll(jobs);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redeq.admin().stats("capped").ready() == 5);
		try (StatefulRedisConnection<String, String> raw = this.lettuce.connect()) {
			// A ready list that is a string: the claim script there fails with WRONGTYPE.
			raw.sync().set(keys.readyKey(broken, "capped"), "not a list");
		}

		AtomicInteger active = new AtomicInteger();
		AtomicInteger peak = new AtomicInteger();
		CountDownLatch release = new CountDownLatch(1);
		try {
			this.redeq.subscribe("capped", Integer.class, (n, delivery) -> {
				peak.accumulateAndGet(active.incrementAndGet(), Math::max);
				try {
					release.await(30, TimeUnit.SECONDS);
				}
				finally {
					active.decrementAndGet();
				}
			}, SubscriptionOptions.builder().concurrency(2).build());

			await().atMost(Duration.ofSeconds(10)).until(() -> active.get() >= 2);
			// The fetcher retries after a failed round within a second; give it three.
			await().during(Duration.ofSeconds(3))
				.atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(peak.get()).as("handlers running at once").isLessThanOrEqualTo(2));
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void retriesWithBackoffThenBuriesWithTheError() {
		List<Long> attemptsAt = new CopyOnWriteArrayList<>();
		List<String> dead = new CopyOnWriteArrayList<>();
		this.redeq.close();
		this.redeq = Redeq.builder(this.lettuce)
			.backoff(new Backoff(Duration.ofMillis(200), 2.0, Duration.ofSeconds(5), 0.0))
			.lifecycleListener(new JobLifecycleListener() {
				@Override
				public void onDead(Delivery delivery, String reason) {
					dead.add(delivery.id() + " " + reason);
				}
			})
			.build();
		this.redeq.subscribe("flaky", String.class, (payload, delivery) -> {
			attemptsAt.add(System.nanoTime());
			throw new IllegalStateException("downstream said no to " + payload);
		}, SubscriptionOptions.builder().maxAttempts(3).build());

		this.redeq.client().schedule(Job.builder("flaky").id("f-1").payload("x").build());

		await().atMost(Duration.ofSeconds(10)).until(() -> dead.size() == 1);
		assertThat(attemptsAt).hasSize(3);
		long firstWait = TimeUnit.NANOSECONDS.toMillis(attemptsAt.get(1) - attemptsAt.get(0));
		long secondWait = TimeUnit.NANOSECONDS.toMillis(attemptsAt.get(2) - attemptsAt.get(1));
		assertThat(firstWait).isBetween(180L, 1500L);
		assertThat(secondWait).isBetween(380L, 2000L);
		assertThat(dead.get(0)).contains("f-1").contains("IllegalStateException: downstream said no to x");
		List<DeadJob> deadJobs = this.redeq.admin().deadJobs("flaky", 0, 10);
		assertThat(deadJobs).singleElement().satisfies((job) -> {
			assertThat(job.id()).isEqualTo("f-1");
			assertThat(job.payload()).isEqualTo("\"x\"");
			assertThat(job.attempts()).isEqualTo(3);
			assertThat(job.lastError()).contains("IllegalStateException: downstream said no to x");
		});
		assertThat(this.redeq.client().find("flaky", "f-1")).get().extracting(JobInfo::state).isEqualTo(JobState.DEAD);
		assertThat(this.redeq.admin().stats("flaky")).isEqualTo(new TopicStats("flaky", 0, 0, 0, 1));
	}

	@Test
	void listenersAreToldOfEachAttemptBeforeItsHandlerAndOneThatThrowsChangesNothing() {
		List<String> events = new CopyOnWriteArrayList<>();
		this.redeq.close();
		this.redeq = Redeq.builder(this.lettuce)
			.backoff(new Backoff(Duration.ofMillis(50), 2.0, Duration.ofSeconds(1), 0.0))
			.lifecycleListener(new JobLifecycleListener() {
				@Override
				public void onStart(Delivery delivery) {
					throw new IllegalStateException("a broken listener");
				}
			})
			.lifecycleListener(new JobLifecycleListener() {
				@Override
				public void onStart(Delivery delivery) {
					events.add("start " + delivery.id() + " " + delivery.attempt());
				}

				@Override
				public void onRetry(Delivery delivery, Throwable error, Instant nextAttemptAt) {
					events.add("retry " + delivery.id() + " " + delivery.attempt());
				}

				@Override
				public void onSuccess(Delivery delivery, Duration handlerDuration) {
					events.add("success " + delivery.id() + " " + delivery.attempt());
				}
			})
			.build();
		this.redeq.subscribe("started", String.class, (payload, delivery) -> {
			events.add("handler " + delivery.id() + " " + delivery.attempt());
			if (delivery.attempt() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
		});

		this.redeq.client().schedule(Job.builder("started").id("s-1").payload("x").build());

		await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("success s-1 2"));
		assertThat(events).containsExactly("start s-1 1", "handler s-1 1", "retry s-1 1", "start s-1 2",
				"handler s-1 2", "success s-1 2");
	}

	@Test
	void poisonJobGoesToDeadAtOnceAndOthersFlowOn() {
		List<Item> received = new CopyOnWriteArrayList<>();
		this.redeq.subscribe("items", Item.class, (item, delivery) -> received.add(item));

		this.redeq.client().schedule(Job.builder("items").id("poison").payload("not an item").build());
		this.redeq.client().schedule(Job.builder("items").id("good").payload(new Item("pear", 1)).build());

		await().atMost(Duration.ofSeconds(10))
			.until(() -> received.size() == 1 && this.redeq.admin().stats("items").dead() == 1);
		DeadJob poison = this.redeq.admin().deadJobs("items", 0, 10).get(0);
		assertThat(poison.id()).isEqualTo("poison");
		assertThat(poison.attempts()).isEqualTo(1);
		assertThat(poison.lastError()).contains("payload cannot be read as").contains(Item.class.getTypeName());
	}

	@Test
	void requeuesAndPurgesDeadJobs() {
		AtomicInteger failuresLeft = new AtomicInteger(2);
		Set<String> completed = ConcurrentHashMap.newKeySet();
		this.redeq.subscribe("dlq", String.class, (payload, delivery) -> {
			if (failuresLeft.getAndDecrement() > 0) {
				throw new IllegalStateException("not yet");
			}
			completed.add(delivery.id());
		}, SubscriptionOptions.builder().maxAttempts(1).build());
		this.redeq.client().schedule(Job.builder("dlq").id("a").payload("a").build());
		this.redeq.client().schedule(Job.builder("dlq").id("b").payload("b").build());
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redeq.admin().stats("dlq").dead() == 2);

		assertThat(this.redeq.admin().requeueDead("dlq", "a")).isTrue();
		assertThat(this.redeq.admin().requeueDead("dlq", "a")).isFalse();
		await().atMost(Duration.ofSeconds(10)).until(() -> completed.contains("a"));
		assertThat(this.redeq.admin().purgeDead("dlq")).isEqualTo(1);
		assertThat(this.redeq.admin().stats("dlq")).isEqualTo(new TopicStats("dlq", 0, 0, 0, 0));
	}

	@Test
	void aHandlerPastItsTimeoutIsInterruptedRetriedAndItsSlotComesBack() throws Exception {
		CountDownLatch hung = new CountDownLatch(1);
		Set<String> done = ConcurrentHashMap.newKeySet();
		Map<String, Integer> attempts = new ConcurrentHashMap<>();
		this.redeq.subscribe("hangs", String.class, (payload, delivery) -> {
			attempts.merge(delivery.id(), 1, Integer::sum);
			if (payload.equals("hang") && delivery.attempt() == 1) {
				hung.countDown();
				// Never returns on its own: the timeout interrupts it.
				new CountDownLatch(1).await();
			}
			done.add(delivery.id());
		}, SubscriptionOptions.builder().concurrency(1).timeout(Duration.ofMillis(500)).maxAttempts(2).build());

		this.redeq.client().schedule(Job.builder("hangs").id("h").payload("hang").build());
		assertThat(hung.await(10, TimeUnit.SECONDS)).isTrue();
		this.redeq.client().schedule(Job.builder("hangs").id("next").payload("fine").build());

		await().atMost(Duration.ofSeconds(10)).until(() -> done.containsAll(Set.of("h", "next")));
		assertThat(attempts).containsEntry("h", 2).containsEntry("next", 1);
	}

	@Test
	void aHandlerThatAlwaysHangsEndsDeadWithTheTimeoutAsReasonWhileOthersFlow() {
		Set<String> done = ConcurrentHashMap.newKeySet();
		this.redeq.subscribe("stuck", String.class, (payload, delivery) -> {
			if (payload.equals("hang")) {
				new CountDownLatch(1).await(); // never returns on its own
			}
			done.add(delivery.id());
		}, SubscriptionOptions.builder().concurrency(1).timeout(Duration.ofMillis(300)).maxAttempts(2).build());

		this.redeq.client().schedule(Job.builder("stuck").id("forever").payload("hang").build());
		for (int i = 0; i < 5; i++) {
			this.redeq.client()
				.schedule(Job.builder("stuck").id("ok" + i).payload("fine").delay(Duration.ofMillis(i * 100L)).build());
		}

		await().atMost(Duration.ofSeconds(15))
			.until(() -> this.redeq.admin().stats("stuck").dead() == 1 && done.size() == 5);
		DeadJob dead = this.redeq.admin().deadJobs("stuck", 0, 10).get(0);
		assertThat(dead.id()).isEqualTo("forever");
		assertThat(dead.attempts()).isEqualTo(2);
		assertThat(dead.lastError()).contains("HandlerTimeoutException").contains("PT0.3S");
	}

	@Test
	void withoutBlockingCommandsConsumersPollAndStillDeliverEveryJob() {
		this.redeq.close();
		this.redeq = Redeq.builder(this.lettuce).blocking(false).pollInterval(Duration.ofSeconds(1)).build();
		Set<String> done = ConcurrentHashMap.newKeySet();
		this.redeq.subscribe("polled", Integer.class, (n, delivery) -> done.add(delivery.id()),
				SubscriptionOptions.builder().concurrency(2).build());
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			jobs.add(Job.builder("polled").id("p" + i).payload(i).delay(Duration.ofMillis(i * 5L)).build());
		}
		this.redeq.client().scheduleAll(jobs);

		await().atMost(Duration.ofSeconds(20)).until(() -> done.size() == 200);
		// A completion may wait a few ms for others of its bucket after its handler ran.
		await().atMost(Duration.ofSeconds(5)).until(() -> this.redeq.admin().stats("polled").pending() == 0);
	}

	record Item(String sku, int quantity) {
	}

	/** Carries List&lt;Item&gt; as a reflective type. */
	abstract static class ItemList extends ArrayList<List<Item>> {

	}

}
