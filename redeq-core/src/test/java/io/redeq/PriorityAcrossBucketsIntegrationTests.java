package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Priority and due order hold across the buckets of a topic, not only within one: a
 * consumer with free slots takes the topic's best-scored READY jobs whichever buckets
 * hold them. Each job of a test sits in a bucket of its own, in bucket order against the
 * order expected, so a consumer that walked the buckets one by one would fail. Due times
 * of one priority lie 5 ms apart, more than the slack within which two buckets' jobs may
 * start in either order.
 */
@RedisTest
class PriorityAcrossBucketsIntegrationTests {

	private final RedisClient lettuce;

	private Redeq redeq;

	private KeySpace keys;

	private final List<String> order = new CopyOnWriteArrayList<>();

	PriorityAcrossBucketsIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		this.redeq = Redeq.builder(this.lettuce).build();
		this.keys = new KeySpace(this.redeq.options().prefix(), this.redeq.options().buckets());
	}

	@AfterEach
	void stop() {
		this.redeq.close();
	}

	/**
	 * A paused topic fills with ten priority-0 jobs and then three priority-9 jobs; once
	 * resumed, one handler at a time runs the three priority-9 jobs first, then the
	 * priority-0 ones, each priority in due order.
	 */
	@Test
	void resumedTopicRunsItsPriorityNineJobsBeforeAnyPriorityZeroJobAcrossBuckets() {
		String topic = "resumed";
		this.redeq.admin().pause(topic);
		List<String> ids = idsInDistinctBuckets(topic, 13);
		Instant base = Instant.now().minusSeconds(5);
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			jobs.add(job(topic, ids.get(i), "p0-" + i, base.plusMillis(5L * i), 0));
		}
		for (int i = 0; i < 3; i++) {
			jobs.add(job(topic, ids.get(10 + i), "p9-" + i, base.plusMillis(5L * (10 + i)), 9));
		}
		this.redeq.client().scheduleAll(jobs);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redeq.admin().stats(topic).ready() == 13);
		subscribeOneAtATime(topic);

		this.redeq.admin().resume(topic);

		await().atMost(Duration.ofSeconds(15)).until(() -> this.order.size() == 13);
		assertThat(this.order.subList(0, 3)).containsExactly("p9-0", "p9-1", "p9-2");
		assertThat(this.order).containsExactly("p9-0", "p9-1", "p9-2", "p0-0", "p0-1", "p0-2", "p0-3", "p0-4", "p0-5",
				"p0-6", "p0-7", "p0-8", "p0-9");
	}

	@Test
	void higherPriorityFirstAndFifoWithinOnePriorityAcrossBuckets() {
		String topic = "mixed";
		int[] priorities = { 0, 9, 5, 0, 9, 5, 0, 9, 5 };
		List<String> ids = idsInDistinctBuckets(topic, priorities.length);
		Instant base = Instant.now().minusSeconds(5);
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < priorities.length; i++) {
			jobs.add(job(topic, ids.get(i), "p" + priorities[i] + "-" + i, base.plusMillis(5L * i), priorities[i]));
		}
		this.redeq.client().scheduleAll(jobs);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redeq.admin().stats(topic).ready() == 9);

		subscribeOneAtATime(topic);

		await().atMost(Duration.ofSeconds(15)).until(() -> this.order.size() == 9);
		assertThat(this.order).containsExactly("p9-1", "p9-4", "p9-7", "p5-2", "p5-5", "p5-8", "p0-0", "p0-3", "p0-6");
	}

	/**
	 * A backlog spread over every bucket, drained one at a time with the prefetch open:
	 * the fetcher's rounds, the claims completions make in their scripts and the
	 * migrator's hand-offs together still start the jobs in due order.
	 */
	@Test
	void aBacklogSpreadOverEveryBucketDrainsInDueOrder() {
		String topic = "spread";
		int count = 240;
		List<String> ids = new ArrayList<>();
		Set<Integer> buckets = new HashSet<>();
		for (int i = 0; i < count; i++) {
			ids.add("j" + i);
			buckets.add(this.keys.bucketOf(KeySpace.jobKey(topic, "j" + i)));
		}
		assertThat(buckets).hasSize(this.redeq.options().buckets());
		Instant base = Instant.now().minusSeconds(5);
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			jobs.add(job(topic, ids.get(i), ids.get(i), base.plusMillis(5L * i), 0));
		}
		this.redeq.client().scheduleAll(jobs);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.redeq.admin().stats(topic).ready() == count);

		subscribeOneAtATime(topic);

		await().atMost(Duration.ofSeconds(20)).until(() -> this.order.size() == count);
		assertThat(this.order).containsExactlyElementsOf(ids);
	}

	private static Job job(String topic, String id, String label, Instant dueAt, int priority) {
		return Job.builder(topic).id(id).payload(label).dueAt(dueAt).priority(priority).build();
	}

	private void subscribeOneAtATime(String topic) {
		this.redeq.subscribe(topic, String.class, (label, delivery) -> this.order.add(label),
				SubscriptionOptions.builder().concurrency(1).build());
	}

	/**
	 * Ids of {@code count} jobs, the i-th in bucket i: the jobs expected first sit in the
	 * buckets a consumer walking them in order would reach last.
	 */
	private List<String> idsInDistinctBuckets(String topic, int count) {
		assertThat(count).isLessThanOrEqualTo(this.redeq.options().buckets());
		List<String> ids = new ArrayList<>();
		for (int bucket = 0; bucket < count; bucket++) {
			String found = null;
			for (int i = 0; found == null && i < 100_000; i++) {
				if (this.keys.bucketOf(KeySpace.jobKey(topic, "j" + i)) == bucket) {
					found = "j" + i;
				}
			}
			assertThat(found).as("an id in bucket %d", bucket).isNotNull();
			ids.add(found);
		}
		return ids;
	}

}
