package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.internal.admin.StepwisePurge;
import io.redeq.internal.redis.KeySpace;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Bulk removal on a real redis-server: {@link RedeqClient#cancelAll} cancels exactly the
 * waiting jobs among its ids, whichever buckets they fall in, and
 * {@link RedeqAdmin#purge} deletes every job of a topic in one state, in steps of at most
 * 1,000 jobs, leaving other topics and other states alone.
 */
@RedisTest
class BulkRemovalIntegrationTests {

	private static final Logger logger = LoggerFactory.getLogger(BulkRemovalIntegrationTests.class);

	private final RedisClient lettuce;

	private Redeq redeq;

	BulkRemovalIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		// No prefetch: a consumer whose handlers are all busy claims nothing ahead of
		// them,
		// so the jobs due now stay READY for the cancels to find.
		this.redeq = Redeq.builder(this.lettuce).buckets(16).prefetch(0).build();
	}

	@AfterEach
	void stop() {
		this.redeq.close();
	}

	@Test
	void cancelAllCancelsTheWaitingJobsAmongItsIdsInEveryBucketAndNoOther() throws Exception {
		CountDownLatch running = new CountDownLatch(2);
		CountDownLatch release = new CountDownLatch(1);
		this.redeq.subscribe("bulk", String.class, (payload, delivery) -> {
			if (payload.equals("poison")) {
				throw new NotRetryableException("poison");
			}
			running.countDown();
			release.await(30, TimeUnit.SECONDS);
		}, SubscriptionOptions.builder().concurrency(2).lease(Duration.ofSeconds(30)).build());
		RedeqClient client = this.redeq.client();
		RedeqAdmin admin = this.redeq.admin();
		try {
			client.schedule(Job.builder("bulk").id("dead-1").payload("poison").build());
			await().atMost(Duration.ofSeconds(10)).until(() -> admin.stats("bulk").dead() == 1);
			client.schedule(Job.builder("bulk").id("run-1").payload("hold").build());
			client.schedule(Job.builder("bulk").id("run-2").payload("hold").build());
			assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
			// Both slots are held: jobs due now wait READY.
			List<Job> jobs = new ArrayList<>();
			IntStream.range(0, 50).forEach((i) -> jobs.add(Job.builder("bulk").id("ready-" + i).payload("r").build()));
			IntStream.range(0, 300)
				.forEach((i) -> jobs
					.add(Job.builder("bulk").id("delayed-" + i).payload("d").delay(Duration.ofHours(1)).build()));
			jobs.add(Job.builder("other").id("delayed-0").payload("o").delay(Duration.ofHours(1)).build());
			client.scheduleAll(jobs);
			// Both slots are held, so the jobs due now wait READY.
			await().atMost(Duration.ofSeconds(10))
				.until(() -> admin.stats("bulk").ready() + admin.stats("bulk").inFlight() == 52);
			Set<String> readyNow = new HashSet<>();
			admin.jobs("bulk", JobState.READY, 0, 100).forEach((job) -> readyNow.add(job.id()));
			assertThat(readyNow).hasSize(50);

			List<String> ids = new ArrayList<>();
			IntStream.range(0, 300).forEach((i) -> ids.add("delayed-" + i));
			IntStream.range(0, 50).forEach((i) -> ids.add("ready-" + i));
			IntStream.range(0, 20).forEach((i) -> ids.add("unknown-" + i));
			ids.addAll(List.of("run-1", "run-2", "dead-1", "delayed-7", "ready-3"));
			Set<Integer> buckets = new HashSet<>();
			KeySpace keys = new KeySpace("redeq", 16);
			ids.forEach((id) -> buckets.add(keys.bucketOf(KeySpace.jobKey("bulk", id))));
			assertThat(buckets).as("the ids fall in every bucket").hasSize(16);

			assertThat(client.cancelAll("bulk", ids)).isEqualTo(300 + readyNow.size());

			int taken = 50 - readyNow.size();
			assertThat(admin.stats("bulk")).isEqualTo(new TopicStats("bulk", 0, 0, 2 + taken, 1));
			for (String id : ids) {
				JobState expected = switch (id) {
					case "run-1", "run-2" -> JobState.IN_FLIGHT;
					case "dead-1" -> JobState.DEAD;
					default -> (id.startsWith("ready-") && !readyNow.contains(id)) ? JobState.IN_FLIGHT : null;
				};
				assertThat(client.find("bulk", id).map(JobInfo::state).orElse(null)).as(id).isEqualTo(expected);
			}
			assertThat(client.find("other", "delayed-0")).isPresent();
			assertThat(client.cancelAll("bulk", ids)).as("nothing left to cancel").isZero();
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void cancelAllChecksItsInput() {
		RedeqClient client = this.redeq.client();
		assertThat(client.cancelAll("bulk", List.of())).isZero();
		List<String> tooMany = IntStream.range(0, 10_001).mapToObj((i) -> "id-" + i).toList();
		assertThatIllegalArgumentException().isThrownBy(() -> client.cancelAll("bulk", tooMany))
			.withMessageContaining("'bulk'")
			.withMessageContaining("at most 10000")
			.withMessageContaining("got 10001");
		assertThatIllegalArgumentException().isThrownBy(() -> client.cancelAll("bulk", List.of("a", "")))
			.withMessageContaining("job id in topic 'bulk' must not be null or empty");
		assertThatIllegalArgumentException().isThrownBy(() -> client.cancelAll("bad topic", List.of("a")))
			.withMessageContaining("bad topic");
		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> client.cancelAll("bulk", null))
			.withMessageContaining("'bulk'");
	}

	@Test
	void purgeDeletesEveryDelayedJobOfTheTopicInStepsOfAtMostAThousand() {
		RedeqClient client = this.redeq.client();
		RedeqAdmin admin = this.redeq.admin();
		int total = 20_000;
		List<Job> jobs = new ArrayList<>(1000);
		for (int i = 0; i < total; i++) {
			jobs.add(Job.builder("purged").id("p-" + i).payload(i).delay(Duration.ofHours(1)).build());
			if (jobs.size() == 1000) {
				client.scheduleAll(jobs);
				jobs.clear();
			}
		}
		List<Job> others = new ArrayList<>();
		// Other topics' jobs share the DELAYED index of each bucket, before and after.
		IntStream.range(0, 300)
			.forEach((i) -> others
				.add(Job.builder("kept").id("k-" + i).payload(i).delay(Duration.ofMinutes(1)).build()));
		IntStream.range(0, 300)
			.forEach((i) -> others.add(Job.builder("kept").id("l-" + i).payload(i).delay(Duration.ofDays(1)).build()));
		IntStream.range(0, 40).forEach((i) -> others.add(Job.builder("purged").id("r-" + i).payload(i).build()));
		client.scheduleAll(others);
		await().atMost(Duration.ofSeconds(10)).until(() -> admin.stats("purged").ready() == 40);
		List<Integer> steps = new CopyOnWriteArrayList<>();
		Set<String> told = new HashSet<>();

		long started = System.nanoTime();
		long purged = ((StepwisePurge) admin).purge("purged", JobState.DELAYED, (ids) -> {
			steps.add(ids.size());
			told.addAll(ids);
		});
		logger.info("purge of {} DELAYED jobs took {} ms in {} steps", total,
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), steps.size());

		assertThat(purged).isEqualTo(total);
		assertThat(steps).allSatisfy((size) -> assertThat(size).isBetween(1, 1000));
		assertThat(steps.size()).isGreaterThanOrEqualTo(total / 1000);
		assertThat(told).hasSize(total).contains("p-0", "p-19999");
		assertThat(admin.stats("purged")).isEqualTo(new TopicStats("purged", 0, 40, 0, 0));
		assertThat(admin.stats("kept")).isEqualTo(new TopicStats("kept", 600, 0, 0, 0));
		assertThat(client.find("purged", "p-123")).isEmpty();
		assertThat(admin.jobs("purged", JobState.DELAYED, 0, 10)).isEmpty();
		assertThat(admin.purge("purged", JobState.DELAYED)).as("nothing left").isZero();
	}

	@Test
	void purgeDeletesReadyAndDeadJobsAndRefusesRunningOnes() {
		RedeqClient client = this.redeq.client();
		RedeqAdmin admin = this.redeq.admin();
		this.redeq.subscribe("graveyard", String.class, (payload, delivery) -> {
			throw new NotRetryableException("always");
		});
		List<Job> jobs = new ArrayList<>();
		IntStream.range(0, 1500).forEach((i) -> jobs.add(Job.builder("waiting").id("w-" + i).payload(i).build()));
		IntStream.range(0, 5)
			.forEach(
					(i) -> jobs.add(Job.builder("waiting").id("d-" + i).payload(i).delay(Duration.ofHours(1)).build()));
		IntStream.range(0, 30).forEach((i) -> jobs.add(Job.builder("graveyard").id("g-" + i).payload("x").build()));
		client.scheduleAll(jobs);
		await().atMost(Duration.ofSeconds(20))
			.until(() -> admin.stats("waiting").ready() == 1500 && admin.stats("graveyard").dead() == 30);

		assertThat(admin.purge("waiting", JobState.READY)).isEqualTo(1500);
		assertThat(admin.stats("waiting")).isEqualTo(new TopicStats("waiting", 5, 0, 0, 0));
		assertThat(admin.purge("graveyard", JobState.DEAD)).isEqualTo(30);
		assertThat(admin.stats("graveyard").dead()).isZero();

		assertThatIllegalArgumentException().isThrownBy(() -> admin.purge("waiting", JobState.IN_FLIGHT))
			.withMessageContaining("'waiting'")
			.withMessageContaining("IN_FLIGHT")
			.withMessageContaining("DELAYED, READY or DEAD");
		assertThatIllegalArgumentException().isThrownBy(() -> admin.purge("bad topic", JobState.READY))
			.withMessageContaining("bad topic");
		assertThat(admin.stats("waiting").delayed()).isEqualTo(5);
	}

	/**
	 * Not a benchmark: prints how long 10,000 cancels take one by one and in one
	 * {@code cancelAll}, on this machine's redis-server, for the record.
	 */
	@Test
	void cancelAllOfTenThousandIdsAgainstTenThousandSingleCancels() {
		RedeqClient client = this.redeq.client();
		int count = 10_000;
		scheduleDelayed(client, "single", count);
		scheduleDelayed(client, "bulk", count);
		List<String> ids = IntStream.range(0, count).mapToObj((i) -> "c-" + i).toList();

		long started = System.nanoTime();
		long single = 0;
		for (String id : ids) {
			single += client.cancel("single", id) ? 1 : 0;
		}
		long singleNanos = System.nanoTime() - started;
		started = System.nanoTime();
		long bulk = client.cancelAll("bulk", ids);
		long bulkNanos = System.nanoTime() - started;
		logger.info("{} single cancels took {} ms; one cancelAll of {} ids took {} ms (ratio {})", count,
				TimeUnit.NANOSECONDS.toMillis(singleNanos), count, TimeUnit.NANOSECONDS.toMillis(bulkNanos),
				String.format("%.1f", (double) singleNanos / bulkNanos));

		assertThat(single).isEqualTo(count);
		assertThat(bulk).isEqualTo(count);
		assertThat(this.redeq.admin().stats("bulk").pending()).isZero();
	}

	private static void scheduleDelayed(RedeqClient client, String topic, int count) {
		List<Job> jobs = new ArrayList<>(1000);
		for (int i = 0; i < count; i++) {
			jobs.add(Job.builder(topic).id("c-" + i).payload(i).delay(Duration.ofHours(1)).build());
			if (jobs.size() == 1000) {
				client.scheduleAll(jobs);
				jobs.clear();
			}
		}
	}

}
