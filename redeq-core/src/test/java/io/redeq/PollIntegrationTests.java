package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedeqClient#poll}: a due job is leased to the caller, who acks or fails it as a
 * listener's outcome would; a waiting poll is woken when a job becomes due, ends empty
 * after its wait, and ends at once when the engine closes; an unsettled job is delivered
 * again after its lease, and the late settlement of the first delivery changes nothing.
 */
@RedisTest
class PollIntegrationTests {

	/**
	 * Longer than any wait here: a poll that returns sooner was woken by a signal, not by
	 * the safety scan at the poll interval.
	 */
	private static final Duration POLL_INTERVAL = Duration.ofSeconds(30);

	private final RedisClient lettuce;

	private final List<String> events = new CopyOnWriteArrayList<>();

	private Redeq redeq;

	private RedeqClient client;

	PollIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		this.redeq = engine(Set.of());
		this.client = this.redeq.client();
	}

	private Redeq engine(Set<String> notRetryable) {
		return Redeq.builder(this.lettuce)
			.pollInterval(POLL_INTERVAL)
			.timeout(Duration.ofSeconds(30))
			.maxAttempts(2)
			.backoff(new Backoff(Duration.ofMillis(100), 1.0, Duration.ofMillis(100), 0.0))
			.pollSettings((topic) -> settings(topic), (topic) -> notRetryable)
			.lifecycleListener(new JobLifecycleListener() {

				@Override
				public void onSuccess(Delivery delivery, Duration took) {
					PollIntegrationTests.this.events.add("completed " + delivery.id());
				}

				@Override
				public void onRetry(Delivery delivery, Throwable error, Instant nextAttemptAt) {
					PollIntegrationTests.this.events.add("retry " + delivery.id());
				}

				@Override
				public void onDead(Delivery delivery, String reason) {
					PollIntegrationTests.this.events.add("dead " + delivery.id());
				}

			})
			.build();
	}

	private static SubscriptionOptions settings(String topic) {
		if (topic.startsWith("short.")) {
			return SubscriptionOptions.builder().timeout(Duration.ofSeconds(1)).build();
		}
		if (topic.startsWith("limited.")) {
			return SubscriptionOptions.builder().rateLimit(2, Duration.ofSeconds(1)).build();
		}
		return SubscriptionOptions.defaults();
	}

	@AfterEach
	void stop() {
		this.redeq.close();
	}

	@Test
	void aDueJobIsLeasedToTheCallerAndAckCompletesIt() {
		this.client.schedule(Job.builder("report.build").id("r-1").payload(new Report("sales", 3)).build());

		PolledJob job = this.client.poll("report.build", Duration.ofSeconds(10)).orElseThrow();

		assertThat(job.id()).isEqualTo("r-1");
		assertThat(job.topic()).isEqualTo("report.build");
		assertThat(job.attempt()).isEqualTo(1);
		assertThat(job.createdAt()).isBeforeOrEqualTo(job.dueAt());
		assertThat(job.payload(Report.class)).isEqualTo(new Report("sales", 3));
		assertThat(this.client.find("report.build", "r-1"))
			.hasValueSatisfying((info) -> assertThat(info.state()).isEqualTo(JobState.IN_FLIGHT));
		job.ack();
		assertThat(this.client.find("report.build", "r-1")).isEmpty();
		assertThat(this.events).containsExactly("completed r-1");
		assertThatIllegalStateException().isThrownBy(job::ack).withMessageContaining("already acknowledged");
		assertThatIllegalStateException().isThrownBy(() -> job.fail(new IllegalStateException("late")))
			.withMessageContaining("already acknowledged");
	}

	@Test
	void aWaitingPollIsWokenAsSoonAsAJobBecomesDue() throws Exception {
		long start = System.nanoTime();
		CompletableFuture<Optional<PolledJob>> polled = CompletableFuture
			.supplyAsync(() -> this.client.poll("report.soon", Duration.ofSeconds(30)));
		this.client.schedule(Job.builder("report.soon").id("soon").payload("x").delay(Duration.ofMillis(300)).build());

		Optional<PolledJob> job = polled.get(20, TimeUnit.SECONDS);

		long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		assertThat(job).hasValueSatisfying((j) -> assertThat(j.id()).isEqualTo("soon"));
		// Due after 300 ms; neither the 30 s wait nor the 30 s poll interval ran out.
		assertThat(tookMillis).isGreaterThanOrEqualTo(300).isLessThan(10_000);
		job.get().ack();
	}

	@Test
	void aPollEndsEmptyAfterItsWaitWhenNothingIsDue() {
		this.client.schedule(Job.builder("report.later").id("later").payload("x").delay(Duration.ofHours(1)).build());
		long start = System.nanoTime();

		Optional<PolledJob> job = this.client.poll("report.later", Duration.ofMillis(500));

		assertThat(job).isEmpty();
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(500);
		assertThat(this.client.poll("report.later", Duration.ZERO)).isEmpty();
		assertThat(this.client.find("report.later", "later"))
			.hasValueSatisfying((info) -> assertThat(info.state()).isEqualTo(JobState.DELAYED));
	}

	@Test
	void aPollWithoutWaitTakesAJobThatIsReady() {
		// The first poll of the topic looks at every bucket; the later ones must find
		// READY jobs whose signal they never waited for.
		assertThat(this.client.poll("report.ready", Duration.ZERO)).isEmpty();
		this.client.schedule(Job.builder("report.ready").id("ready").payload("x").build());
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.client.find("report.ready", "ready").map(JobInfo::state).orElse(null) == JobState.READY);

		PolledJob job = this.client.poll("report.ready", Duration.ZERO).orElseThrow();

		assertThat(job.id()).isEqualTo("ready");
		job.ack();
	}

	@Test
	void failRetriesAfterTheBackoffThenBuriesWhenTheAttemptsAreUsedUp() {
		this.client.schedule(Job.builder("report.flaky").id("flaky").payload("x").build());

		PolledJob first = this.client.poll("report.flaky", Duration.ofSeconds(10)).orElseThrow();
		first.fail(new IllegalStateException("printer on fire"));
		assertThat(this.client.find("report.flaky", "flaky")).hasValueSatisfying((info) -> {
			assertThat(info.state()).isIn(JobState.DELAYED, JobState.READY);
			assertThat(info.attempts()).isEqualTo(1);
		});
		PolledJob second = this.client.poll("report.flaky", Duration.ofSeconds(10)).orElseThrow();
		assertThat(second.attempt()).isEqualTo(2);
		second.fail(new IllegalStateException("printer still on fire"));

		assertThat(this.redeq.admin().stats("report.flaky").dead()).isEqualTo(1);
		assertThat(this.redeq.admin().deadJobs("report.flaky", 0, 10)).singleElement().satisfies((dead) -> {
			assertThat(dead.attempts()).isEqualTo(2);
			assertThat(dead.lastError()).contains("IllegalStateException").contains("printer still on fire");
		});
		assertThat(this.events).containsExactly("retry flaky", "dead flaky");
	}

	@Test
	void failFollowsNotRetryableAndRetryAfterAsForAListener() {
		this.client.schedule(Job.builder("report.rules").id("declined").payload("x").build());
		this.client.schedule(Job.builder("report.rules").id("limited").payload("x").build());

		for (int i = 0; i < 2; i++) {
			PolledJob job = this.client.poll("report.rules", Duration.ofSeconds(10)).orElseThrow();
			if (job.id().equals("declined")) {
				job.fail(new IllegalStateException("wrapped", new NotRetryableException("card declined")));
			}
			else {
				job.fail(new RetryAfterException(Duration.ofHours(1)));
			}
		}

		assertThat(this.redeq.admin().deadJobs("report.rules", 0, 10)).singleElement()
			.satisfies((dead) -> assertThat(dead.id()).isEqualTo("declined"));
		JobInfo limited = this.client.find("report.rules", "limited").orElseThrow();
		assertThat(limited.state()).isEqualTo(JobState.DELAYED);
		assertThat(limited.dueAt()).isAfter(Instant.now().plus(Duration.ofMinutes(50)));
	}

	@Test
	void theTopicsNotRetryableClassesMakeAFailedJobDeadAtOnce() {
		this.redeq.close();
		this.redeq = engine(Set.of(IllegalArgumentException.class.getName()));
		this.client = this.redeq.client();
		this.client.schedule(Job.builder("report.strict").id("bad-input").payload("x").build());

		PolledJob job = this.client.poll("report.strict", Duration.ofSeconds(10)).orElseThrow();
		job.fail(new NumberFormatException("not a number")); // a subclass counts

		assertThat(this.redeq.admin().deadJobs("report.strict", 0, 10)).singleElement().satisfies((dead) -> {
			assertThat(dead.attempts()).isEqualTo(1);
			assertThat(dead.lastError()).contains("not retryable").contains("not a number");
		});
	}

	@Test
	void aJobNotSettledWithinItsLeaseIsDeliveredAgainAndTheLateAckChangesNothing() {
		this.client.schedule(Job.builder("short.lease").id("slow").payload("x").build());
		PolledJob first = this.client.poll("short.lease", Duration.ofSeconds(10)).orElseThrow();

		// The topic's timeout is 1 s: the lease expires and the job is delivered again.
		PolledJob second = this.client.poll("short.lease", Duration.ofSeconds(20)).orElseThrow();

		assertThat(second.id()).isEqualTo("slow");
		assertThat(second.attempt()).isEqualTo(2);
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(first::ack)
			.withMessageContaining("'slow'")
			.withMessageContaining("attempt 1")
			.satisfies((ex) -> assertThat(ex.attempt()).isEqualTo(1));
		assertThatExceptionOfType(LeaseExpiredException.class)
			.isThrownBy(() -> first.fail(new IllegalStateException("late")));
		assertThat(this.client.find("short.lease", "slow")).hasValueSatisfying((info) -> {
			assertThat(info.state()).isEqualTo(JobState.IN_FLIGHT);
			assertThat(info.attempts()).isEqualTo(2);
		});
		assertThat(this.events).isEmpty();
		second.ack();
		assertThat(this.client.find("short.lease", "slow")).isEmpty();
	}

	@Test
	void aJobsOwnTimeoutIsTheLeaseOfItsPolledDelivery() {
		// The topic's timeout is 30 s; the job's own is 1 s.
		this.client.schedule(Job.builder("report.own").id("own").payload("x").timeout(Duration.ofSeconds(1)).build());
		PolledJob first = this.client.poll("report.own", Duration.ofSeconds(10)).orElseThrow();

		PolledJob second = this.client.poll("report.own", Duration.ofSeconds(20)).orElseThrow();

		assertThat(second.attempt()).isEqualTo(2);
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(first::ack);
		second.ack();
	}

	@Test
	void aPausedTopicHandsOutNothingUntilResumed() {
		this.redeq.admin().pause("report.paused");
		this.client.schedule(Job.builder("report.paused").id("held").payload("x").build());

		assertThat(this.client.poll("report.paused", Duration.ofSeconds(1))).isEmpty();
		this.redeq.admin().resume("report.paused");

		PolledJob job = this.client.poll("report.paused", Duration.ofSeconds(10)).orElseThrow();
		assertThat(job.id()).isEqualTo("held");
		job.ack();
	}

	@Test
	void aPauseByAnotherInstanceHoldsBackTheFirstPollOfATopic() {
		try (Redeq other = Redeq.builder(this.lettuce).build()) {
			other.admin().pause("report.held");
		}
		this.client.schedule(Job.builder("report.held").id("held").payload("x").build());

		assertThat(this.client.poll("report.held", Duration.ofMillis(500))).isEmpty();
		assertThat(this.client.find("report.held", "held")).map(JobInfo::state)
			.hasValueSatisfying((state) -> assertThat(state).isIn(JobState.DELAYED, JobState.READY));
	}

	@Test
	void pollsOfARateLimitedTopicStartNoMoreJobsThanItsLimit() {
		for (int i = 0; i < 4; i++) {
			this.client.schedule(Job.builder("limited.report").id("l-" + i).payload("x").build());
		}
		long start = System.nanoTime();
		for (int i = 0; i < 4; i++) {
			this.client.poll("limited.report", Duration.ofSeconds(20)).orElseThrow().ack();
		}
		// 2 per second: the third job cannot start before the first one's second is over.
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(900));
	}

	@Test
	void concurrentPollsOfOneTopicTakeDifferentJobs() throws Exception {
		for (int i = 0; i < 4; i++) {
			this.client.schedule(Job.builder("report.many").id("m-" + i).payload("x").build());
		}
		List<CompletableFuture<Optional<PolledJob>>> polls = new CopyOnWriteArrayList<>();
		for (int i = 0; i < 4; i++) {
			polls.add(CompletableFuture.supplyAsync(() -> this.client.poll("report.many", Duration.ofSeconds(20))));
		}
		List<String> ids = new CopyOnWriteArrayList<>();
		for (CompletableFuture<Optional<PolledJob>> poll : polls) {
			PolledJob job = poll.get(30, TimeUnit.SECONDS).orElseThrow();
			ids.add(job.id());
			job.ack();
		}
		assertThat(ids).containsExactlyInAnyOrder("m-0", "m-1", "m-2", "m-3");
	}

	@Test
	void closingTheEngineEndsAWaitingPollAtOnce() throws Exception {
		CompletableFuture<Optional<PolledJob>> polled = CompletableFuture
			.supplyAsync(() -> this.client.poll("report.closing", Duration.ofSeconds(60)));
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			// The poll waits in Redis: a client blocked in BLPOP on the topic's signals.
			await().atMost(Duration.ofSeconds(10)).until(() -> connection.sync().clientList().contains("cmd=blpop"));
		}
		long start = System.nanoTime();

		this.redeq.close();

		assertThat(polled.get(10, TimeUnit.SECONDS)).isEmpty();
		assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(10);
		assertThatIllegalStateException().isThrownBy(() -> this.client.poll("report.closing", Duration.ZERO))
			.withMessageContaining("report.closing")
			.withMessageContaining("closed");
	}

	@Test
	void badArgumentsAreRefusedNamingThem() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.poll(null, Duration.ZERO))
			.withMessageContaining("topic");
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.poll(" ", Duration.ZERO))
			.withMessageContaining("topic");
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.poll("report.bad", null))
			.withMessageContaining("maxWait")
			.withMessageContaining("report.bad");
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.poll("report.bad", Duration.ofMillis(-1)))
			.withMessageContaining("maxWait")
			.withMessageContaining("PT-0.001S");
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.poll("report.bad", Duration.ofDays(2)))
			.withMessageContaining("PT48H")
			.withMessageContaining("PT24H");
	}

	record Report(String name, int pages) {
	}

}
