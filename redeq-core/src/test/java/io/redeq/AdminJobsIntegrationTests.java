package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.internal.InvalidValueException;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The admin's pages of jobs by state, merged over all buckets, with payloads; and one job
 * found by id.
 */
@RedisTest
class AdminJobsIntegrationTests {

	private final RedisClient lettuce;

	private Redeq redeq;

	AdminJobsIntegrationTests(RedisClient lettuce) {
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
	void delayedJobsComeInDueOrderPageByPageOverAllBuckets() {
		Instant base = Instant.now().plus(Duration.ofHours(1));
		List<Job> jobs = new ArrayList<>();
		// Scheduled in reverse due order, with another topic's jobs in the same indexes.
		for (int i = 29; i >= 0; i--) {
			jobs.add(Job.builder("mail").id("m-" + i).payload(Map.of("n", i)).dueAt(base.plusSeconds(i)).build());
			jobs.add(Job.builder("other").id("o-" + i).payload(Map.of("n", i)).dueAt(base.plusSeconds(i)).build());
		}
		this.redeq.client().scheduleAll(jobs);
		RedeqAdmin admin = this.redeq.admin();

		List<JobView> first = admin.jobs("mail", JobState.DELAYED, 0, 10);
		List<JobView> second = admin.jobs("mail", JobState.DELAYED, 10, 10);
		List<JobView> last = admin.jobs("mail", JobState.DELAYED, 25, 10);

		assertThat(first).extracting(JobView::id).containsExactlyElementsOf(ids("m-", 0, 10));
		assertThat(second).extracting(JobView::id).containsExactlyElementsOf(ids("m-", 10, 20));
		assertThat(last).extracting(JobView::id).containsExactlyElementsOf(ids("m-", 25, 30));
		assertThat(admin.jobs("mail", JobState.DELAYED, 30, 10)).isEmpty();
		JobView job = first.get(3);
		assertThat(job.topic()).isEqualTo("mail");
		assertThat(job.state()).isEqualTo(JobState.DELAYED);
		assertThat(job.payload()).isEqualTo("{\"n\":3}");
		assertThat(job.dueAt()).isEqualTo(base.plusSeconds(3).truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
		assertThat(job.attempts()).isZero();
		assertThat(job.createdAt()).isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(60));
		assertThat(job.lastError()).isNull();
		assertThat(job.leaseDeadline()).isNull();
		assertThat(job.instance()).isNull();
		assertThat(admin.jobs("mail", JobState.READY, 0, 10)).isEmpty();
	}

	@Test
	void readyJobsComeInTheOrderConsumersClaimThem() {
		Instant base = Instant.now().minus(Duration.ofMinutes(10));
		List<Job> jobs = new ArrayList<>();
		for (int i = 11; i >= 0; i--) {
			jobs.add(Job.builder("report").id("r-" + i).payload("text " + i).dueAt(base.plusSeconds(i)).build());
		}
		this.redeq.client().scheduleAll(jobs);
		RedeqAdmin admin = this.redeq.admin();
		await().atMost(Duration.ofSeconds(20)).until(() -> admin.stats("report").ready() == 12);

		assertThat(admin.jobs("report", JobState.READY, 0, 5)).extracting(JobView::id)
			.containsExactlyElementsOf(ids("r-", 0, 5));
		assertThat(admin.jobs("report", JobState.READY, 5, 100)).extracting(JobView::id)
			.containsExactlyElementsOf(ids("r-", 5, 12));
		assertThat(admin.jobs("report", JobState.READY, 0, 1).get(0).payload()).isEqualTo("\"text 0\"");
	}

	@Test
	void inFlightJobsShowTheirLeaseAndInstance() throws Exception {
		CountDownLatch running = new CountDownLatch(2);
		CountDownLatch release = new CountDownLatch(1);
		this.redeq.subscribe("slow", String.class, (text, delivery) -> {
			running.countDown();
			release.await(30, TimeUnit.SECONDS);
		}, SubscriptionOptions.builder().concurrency(2).lease(Duration.ofSeconds(30)).build());
		this.redeq.client().schedule(Job.builder("slow").id("s-1").payload("one").build());
		this.redeq.client().schedule(Job.builder("slow").id("s-2").payload("two").build());
		try {
			assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
			List<JobView> inFlight = this.redeq.admin().jobs("slow", JobState.IN_FLIGHT, 0, 10);
			assertThat(inFlight).extracting(JobView::id).containsExactlyInAnyOrder("s-1", "s-2");
			assertThat(inFlight).allSatisfy((job) -> {
				assertThat(job.state()).isEqualTo(JobState.IN_FLIGHT);
				assertThat(job.attempts()).isEqualTo(1);
				assertThat(job.instance()).isEqualTo(this.redeq.instanceId());
				assertThat(job.leaseDeadline()).isAfter(Instant.now().plusSeconds(5));
			});
			assertThat(inFlight.get(0).leaseDeadline()).isBeforeOrEqualTo(inFlight.get(1).leaseDeadline());
			JobView found = this.redeq.admin().job("slow", "s-2").orElseThrow();
			assertThat(found.state()).isEqualTo(JobState.IN_FLIGHT);
			assertThat(found.payload()).isEqualTo("\"two\"");
			assertThat(found.instance()).isEqualTo(this.redeq.instanceId());
			assertThat(found.leaseDeadline()).isNotNull();
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void deadJobsComeMostRecentFirstWithTheirError() {
		this.redeq.subscribe("flaky", String.class, (text, delivery) -> {
			throw new IllegalStateException("no luck with " + text);
		}, SubscriptionOptions.builder().maxAttempts(2).build());
		this.redeq.client().schedule(Job.builder("flaky").id("f-1").payload("first").build());
		RedeqAdmin admin = this.redeq.admin();
		await().atMost(Duration.ofSeconds(20)).until(() -> admin.stats("flaky").dead() == 1);
		this.redeq.client().schedule(Job.builder("flaky").id("f-2").payload("second").build());
		await().atMost(Duration.ofSeconds(20)).until(() -> admin.stats("flaky").dead() == 2);

		List<JobView> dead = admin.jobs("flaky", JobState.DEAD, 0, 10);

		assertThat(dead).extracting(JobView::id).containsExactly("f-2", "f-1");
		assertThat(dead.get(1).attempts()).isEqualTo(2);
		assertThat(dead.get(1).lastError()).contains("IllegalStateException").contains("no luck with first");
		assertThat(dead.get(1).payload()).isEqualTo("\"first\"");
		assertThat(admin.job("flaky", "f-1")).get().extracting(JobView::state).isEqualTo(JobState.DEAD);
	}

	@Test
	void findsOneJobWithItsPayloadOrNothing() {
		this.redeq.client()
			.schedule(Job.builder("mail").id("m-1").payload(Map.of("to", "ada")).delay(Duration.ofHours(1)).build());

		JobView job = this.redeq.admin().job("mail", "m-1").orElseThrow();

		assertThat(job.state()).isEqualTo(JobState.DELAYED);
		assertThat(job.payload()).isEqualTo("{\"to\":\"ada\"}");
		assertThat(job.dueAt()).isAfter(Instant.now().plus(Duration.ofMinutes(50)));
		assertThat(this.redeq.admin().job("mail", "nope")).isEmpty();
		assertThat(this.redeq.admin().job("unknown-topic", "m-1")).isEmpty();
	}

	/**
	 * With one bucket, a deep page walks the shared index in several steps of 1000
	 * entries; a topic whose jobs lie beyond the look-up budget behind other topics' jobs
	 * gets a short page, though its count is exact.
	 */
	@Test
	void walksDeepPagesInStepsAndStopsAtTheBudget() {
		try (Redeq oneBucket = Redeq.builder(this.lettuce).prefix("walk").buckets(1).migratorEnabled(false).build()) {
			Instant base = Instant.now().plus(Duration.ofHours(1));
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < 2_500; i++) {
				jobs.add(Job.builder("mail").id("m-" + i).payload(i).dueAt(base.plusSeconds(2L * i)).build());
				if (i < 1_500) {
					jobs.add(Job.builder("other").id("o-" + i).payload(i).dueAt(base.plusSeconds(2L * i + 1)).build());
				}
			}
			for (int i = 0; i < 20_500; i++) {
				jobs.add(Job.builder("crowd").id("c-" + i).payload(i).dueAt(base.plusSeconds(i)).build());
			}
			jobs.add(Job.builder("rare").id("r-1").payload(1).dueAt(base.plus(Duration.ofDays(1))).build());
			for (int from = 0; from < jobs.size(); from += 1000) {
				oneBucket.client().scheduleAll(jobs.subList(from, Math.min(from + 1000, jobs.size())));
			}
			RedeqAdmin admin = oneBucket.admin();

			assertThat(admin.jobs("mail", JobState.DELAYED, 2_400, 50)).extracting(JobView::id)
				.containsExactlyElementsOf(ids("m-", 2_400, 2_450));
			assertThat(admin.jobs("mail", JobState.DELAYED, 2_490, 50)).extracting(JobView::id)
				.containsExactlyElementsOf(ids("m-", 2_490, 2_500));
			assertThat(admin.stats("rare").delayed()).isEqualTo(1);
			assertThat(admin.jobs("rare", JobState.DELAYED, 0, 10)).isEmpty();
		}
	}

	@Test
	void refusesPagesPastTheBound() {
		RedeqAdmin admin = this.redeq.admin();
		assertThatExceptionOfType(InvalidValueException.class)
			.isThrownBy(() -> admin.jobs("mail", JobState.DELAYED, 9_990, 11))
			.withMessageContaining("offset + limit")
			.withMessageContaining("10001")
			.withMessageContaining("10000");
		assertThatExceptionOfType(InvalidValueException.class)
			.isThrownBy(() -> admin.jobs("mail", JobState.READY, 0, 0))
			.withMessageContaining("limit");
		assertThatExceptionOfType(InvalidValueException.class)
			.isThrownBy(() -> admin.jobs("mail", JobState.READY, -1, 10))
			.withMessageContaining("offset");
		assertThat(admin.jobs("mail", JobState.DEAD, 9_000, 1000)).isEmpty();
	}

	private static List<String> ids(String prefix, int from, int to) {
		return IntStream.range(from, to).mapToObj((i) -> prefix + i).toList();
	}

}
