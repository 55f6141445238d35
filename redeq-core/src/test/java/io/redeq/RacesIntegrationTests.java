package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Cancel and reschedule racing the migrator and the consumers: each call's answer must
 * hold, and no job is lost or run twice.
 */
@RedisTest
class RacesIntegrationTests {

	private final RedisClient lettuce;

	RacesIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@Test
	void aJobWhoseCancelSaidTrueNeverRunsAndEveryOtherRunsOnce() {
		int total = 2000;
		Map<String, Integer> delivered = new ConcurrentHashMap<>();
		Set<String> cancelled = ConcurrentHashMap.newKeySet();
		try (Redeq redeq = Redeq.builder(this.lettuce).build()) {
			redeq.subscribe("racy", Integer.class, (n, delivery) -> delivered.merge(delivery.id(), 1, Integer::sum),
					SubscriptionOptions.builder().concurrency(4).build());
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < total; i++) {
				jobs.add(Job.builder("racy").id("r" + i).payload(i).delay(Duration.ofMillis(20 + i % 200)).build());
			}
			redeq.client().scheduleAll(jobs);
			// Cancel while the jobs fall due, are migrated and consumed.
			for (int i = 0; i < total; i++) {
				if (redeq.client().cancel("racy", "r" + i)) {
					cancelled.add("r" + i);
				}
			}
			await().atMost(Duration.ofSeconds(20)).until(() -> redeq.admin().stats("racy").pending() == 0);
			await().atMost(Duration.ofSeconds(5)).until(() -> delivered.size() + cancelled.size() == total);
		}
		assertThat(cancelled).as("some cancels won, some lost the race").isNotEmpty();
		assertThat(delivered.keySet()).as("a job whose cancel returned true never runs")
			.doesNotContainAnyElementsOf(cancelled);
		assertThat(delivered.values()).as("deliveries per job").containsOnly(1);
	}

	@Test
	void aRescheduleThatSaidTrueMovesTheJobAndItRunsOnceAtTheNewTime() {
		int total = 500;
		Map<String, List<Delivery>> delivered = new ConcurrentHashMap<>();
		Set<String> moved = ConcurrentHashMap.newKeySet();
		try (Redeq redeq = Redeq.builder(this.lettuce).build()) {
			redeq.subscribe("moving", Integer.class,
					(n, delivery) -> delivered.computeIfAbsent(delivery.id(), (id) -> new CopyOnWriteArrayList<>())
						.add(delivery),
					SubscriptionOptions.builder().concurrency(4).build());
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < total; i++) {
				jobs.add(Job.builder("moving").id("m" + i).payload(i).delay(Duration.ofMillis(10 + i % 100)).build());
			}
			redeq.client().scheduleAll(jobs);
			for (int i = 0; i < total; i++) {
				if (redeq.client().reschedule("moving", "m" + i, Duration.ofMillis(700))) {
					moved.add("m" + i);
				}
			}
			await().atMost(Duration.ofSeconds(20)).until(() -> delivered.size() == total);
			await().atMost(Duration.ofSeconds(5)).until(() -> redeq.admin().stats("moving").pending() == 0);
		}
		assertThat(moved).isNotEmpty();
		assertThat(delivered.values()).as("deliveries per job").allMatch((list) -> list.size() == 1);
		for (String id : moved) {
			Delivery delivery = delivered.get(id).get(0);
			assertThat(Duration.between(delivery.createdAt(), delivery.dueAt())).as("new due time of " + id)
				.isGreaterThanOrEqualTo(Duration.ofMillis(700));
		}
	}

}
