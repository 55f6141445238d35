package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What {@link RedeqAdmin#changeBucketCount(int)} must do once it runs beside live
 * instances: jobs delayed, ready and running while the count doubles and while it halves
 * all run exactly once, a cancel and a reschedule sent during the change take effect,
 * recurring definitions move, and nothing is left in the old buckets.
 *
 * <p>
 * Disabled: the change refuses while an instance heartbeats (an instance runs on the
 * layout it started with, and cannot yet move to another while it runs). Enabled today,
 * it fails at the first change with that refusal.
 */
@RedisTest
@Disabled("changeBucketCount refuses while instances run; the online change is not built yet")
class OnlineBucketCountChangeIntegrationTests {

	private static final String PREFIX = "online";

	private static final int DELAYED = 200;

	private static final int READY = 200;

	private static final int RUNNING = 4;

	private static final int RECURRING = 10;

	private final RedisClient lettuce;

	private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

	private final CountDownLatch release = new CountDownLatch(1);

	OnlineBucketCountChangeIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@Test
	void everyJobRunsOnceWhileTheCountDoublesAndHalvesBesideRunningInstances() throws Exception {
		try (Redeq a = instance(); Redeq b = instance(); Redeq admin = idle()) {
			try {
				changeTwice(a, b, admin);
			}
			finally {
				// Lets the blocked handlers end before the engines close, whatever
				// failed.
				this.release.countDown();
			}
		}
		assertThat(this.runs.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
		assertThat(this.runs).hasSize(2 * (DELAYED + READY + RUNNING + 1));
	}

	private void changeTwice(Redeq a, Redeq b, Redeq admin) throws Exception {
		for (int round = 0; round < 2; round++) {
			int from = (round == 0) ? 16 : 32;
			int to = (round == 0) ? 32 : 16;
			String r = "r" + round + "-";
			a.client().schedule(Job.builder("block").id(r + "block").payload("x").build());
			for (int i = 0; i < RUNNING - 1; i++) {
				b.client().schedule(Job.builder("block").id(r + "block" + i).payload("x").build());
			}
			int blocked = RUNNING * (round + 1);
			await().atMost(Duration.ofSeconds(10)).until(() -> a.admin().stats("block").inFlight() == blocked);
			admin.admin().pause("ready");
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < DELAYED; i++) {
				jobs.add(Job.builder("work").id(r + "d" + i).payload("x").delay(Duration.ofSeconds(2)).build());
			}
			for (int i = 0; i < READY; i++) {
				jobs.add(Job.builder("ready").id(r + "r" + i).payload("x").build());
			}
			jobs.add(Job.builder("work").id(r + "cancelled").payload("x").delay(Duration.ofSeconds(2)).build());
			jobs.add(Job.builder("work").id(r + "moved").payload("x").delay(Duration.ofHours(1)).build());
			a.client().scheduleAll(jobs);
			for (int i = 0; i < RECURRING; i++) {
				a.client()
					.scheduleRecurring(Recurring.builder("tick").id(r + "t" + i).every(Duration.ofHours(1)).build());
			}

			CompletableFuture<Long> change = CompletableFuture.supplyAsync(() -> admin.admin().changeBucketCount(to));
			assertThat(b.client().cancel("work", r + "cancelled")).isTrue();
			assertThat(b.client().reschedule("work", r + "moved", Duration.ofSeconds(1))).isTrue();
			assertThat(change.get(30, TimeUnit.SECONDS)).as("jobs moved").isPositive();
			admin.admin().resume("ready");
			if (round == 1) {
				this.release.countDown();
			}

			await().atMost(Duration.ofSeconds(20))
				.until(() -> a.admin().stats("work").pending() == 0 && a.admin().stats("ready").pending() == 0);
			assertThat(this.runs).doesNotContainKey(r + "cancelled").containsKey(r + "moved");
			assertThat(a.admin().recurring()).filteredOn((info) -> info.id().startsWith(r)).hasSize(RECURRING);
			assertThat(leftIn(from, to)).as("jobs left in the old buckets").isZero();
			try (Redeq late = Redeq.builder(this.lettuce).prefix(PREFIX).buckets(from).build()) {
				assertThat(late.options().buckets()).as("an instance started afterwards").isEqualTo(to);
			}
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> a.admin().stats("block").pending() == 0);
	}

	private Redeq instance() {
		Redeq redeq = Redeq.builder(this.lettuce).prefix(PREFIX).buckets(16).build();
		for (String topic : List.of("work", "ready")) {
			redeq.subscribe(topic, String.class, (payload, delivery) -> ran(delivery.id()),
					SubscriptionOptions.builder().concurrency(4).build());
		}
		redeq.subscribe("block", String.class, (payload, delivery) -> {
			ran(delivery.id());
			this.release.await();
		}, SubscriptionOptions.builder().concurrency(RUNNING).timeout(Duration.ofMinutes(1)).build());
		return redeq;
	}

	private void ran(String id) {
		this.runs.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
	}

	private Redeq idle() {
		return Redeq.builder(this.lettuce).prefix(PREFIX).autoStartup(false).build();
	}

	/**
	 * Jobs and recurring definitions still held by the buckets of the old layout that the
	 * new one does not use too.
	 */
	private long leftIn(int buckets, int now) {
		KeySpace old = new KeySpace(PREFIX, buckets);
		KeySpace current = new KeySpace(PREFIX, now);
		List<String> reused = new ArrayList<>();
		for (int b = 0; b < now; b++) {
			reused.add(current.tag(b));
		}
		long left = 0;
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			for (int b = 0; b < buckets; b++) {
				if (reused.contains(old.tag(b))) {
					continue;
				}
				left += connection.sync().hlen(old.tag(b) + ":payload");
				left += connection.sync().hlen(old.tag(b) + ":recurring");
			}
		}
		return left;
	}

}
