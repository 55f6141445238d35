package io.redeq.internal.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import io.redeq.Backoff;
import io.redeq.Delivery;
import io.redeq.JobLifecycleListener;
import io.redeq.NotRetryableException;
import io.redeq.RedeqUnavailableException;
import io.redeq.RetryAfterException;
import io.redeq.internal.JobEvents;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.JobSettings;
import io.redeq.internal.redis.ScheduleOutcome;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What becomes of a failed job, without Redis: buried when the handler says retrying
 * cannot help or its attempts are used up, retried after the handler's own delay or the
 * backoff otherwise; nothing told when the claim was lost or Redis did not answer; and
 * the listeners told in order, with the job's version where they want it, one throwing
 * listener keeping none of the others from hearing.
 */
class JobOutcomesTests {

	private static final Backoff BACKOFF = new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(1), 0);

	private static final ConsumerSettings SETTINGS = new ConsumerSettings("mail", String.class, 1, 3,
			Duration.ofSeconds(30), Duration.ofSeconds(30), BACKOFF, null);

	private static final long DUE_AT = 1_800_000_000_000L;

	/**
	 * What the fake store, the metrics, the wake-ups and the listeners were told, in
	 * order.
	 */
	private final List<String> told = new CopyOnWriteArrayList<>();

	private final FakeMoves moves = new FakeMoves();

	private final JobEvents events = new JobEvents() {
		@Override
		public void retried(String topic, Duration handlerDuration) {
			JobOutcomesTests.this.told.add("metrics retried " + topic);
		}

		@Override
		public void dead(String topic) {
			JobOutcomesTests.this.told.add("metrics dead " + topic);
		}

		@Override
		public void completed(String topic, Duration handlerDuration) {
			JobOutcomesTests.this.told.add("metrics completed " + topic);
		}
	};

	@Test
	void aNotRetryableCauseBuriesOnTheFirstAttemptWithoutARetry() {
		JobOutcomes outcomes = outcomes(new Recording("a"));
		RuntimeException error = new IllegalStateException("wrapped", new NotRetryableException("bad address"));

		assertThat(outcomes.failed(job(1, JobSettings.NONE), delivery(1), error, Duration.ofMillis(5))).isTrue();

		assertThat(this.moves.retries).isEmpty();
		assertThat(this.moves.burials).singleElement()
			.asString()
			.startsWith("attempt 1 of 3 failed and is not retryable: java.lang.IllegalStateException: wrapped");
		assertThat(this.told).containsExactly("bury job-1", "metrics dead mail", "a onDead");
	}

	@Test
	void theLastAttemptBuriesAndTheJobsOwnMaxAttemptsWinsOverTheSubscriptions() {
		JobOutcomes outcomes = outcomes();
		RuntimeException error = new IllegalStateException("boom");

		assertThat(outcomes.failed(job(3, JobSettings.NONE), delivery(3), error, Duration.ZERO)).isTrue();
		assertThat(outcomes.failed(job(2, new JobSettings(0, 2, 0)), delivery(2), error, Duration.ZERO)).isTrue();
		assertThat(outcomes.failed(job(2, new JobSettings(0, 5, 0)), delivery(2), error, Duration.ZERO)).isTrue();

		assertThat(this.moves.burials).containsExactly("attempt 3 of 3 failed: java.lang.IllegalStateException: boom",
				"attempt 2 of 2 failed: java.lang.IllegalStateException: boom");
		assertThat(this.moves.retries).as("attempt 2 of the job's own 5").hasSize(1);
	}

	@Test
	void aRetryWaitsTheBackoffOrTheDelayTheHandlerAskedFor() {
		JobOutcomes outcomes = outcomes();

		outcomes.failed(job(2, JobSettings.NONE), delivery(2), new IllegalStateException("boom"), Duration.ZERO);
		outcomes.failed(job(1, JobSettings.NONE), delivery(1),
				new IllegalStateException("wrapped", new RetryAfterException(Duration.ofSeconds(42))), Duration.ZERO);

		assertThat(this.moves.retries).containsExactly(BACKOFF.delayAfter(2).toMillis(), 42_000L);
		assertThat(this.moves.burials).isEmpty();
	}

	@Test
	void aRetryThatBecomesTheBucketsEarliestJobWakesTheMigratorForIt() {
		List<String> wakeUps = new ArrayList<>();
		JobOutcomes outcomes = new JobOutcomes(this.moves, SETTINGS, List.of(), this.events,
				(bucket, dueAt) -> wakeUps.add(bucket + "@" + dueAt), null);

		this.moves.earliest = false;
		outcomes.failed(job(1, JobSettings.NONE), delivery(1), new IllegalStateException(), Duration.ZERO);
		assertThat(wakeUps).isEmpty();

		this.moves.earliest = true;
		outcomes.failed(job(1, JobSettings.NONE), delivery(1), new IllegalStateException(), Duration.ZERO);
		assertThat(wakeUps).containsExactly("7@" + DUE_AT);
	}

	@Test
	void aLostClaimStoresNothingAndTellsNoOne() {
		JobOutcomes outcomes = outcomes(new Recording("a"));
		this.moves.claimLost = true;

		assertThat(outcomes.failed(job(1, JobSettings.NONE), delivery(1), new IllegalStateException(), Duration.ZERO))
			.isFalse();
		assertThat(outcomes.failed(job(3, JobSettings.NONE), delivery(3), new IllegalStateException(), Duration.ZERO))
			.isFalse();

		assertThat(this.told).containsExactly("retry job-1", "bury job-1");
	}

	@Test
	void redisNotAnsweringReachesTheWorkerAndTellsNoOne() {
		JobOutcomes outcomes = outcomes(new Recording("a"));
		this.moves.unavailable = true;

		assertThatExceptionOfType(RedeqUnavailableException.class).isThrownBy(() -> outcomes
			.failed(job(1, JobSettings.NONE), delivery(1), new IllegalStateException(), Duration.ZERO));
		assertThatExceptionOfType(RedeqUnavailableException.class)
			.isThrownBy(() -> outcomes.dead(job(1, JobSettings.NONE), delivery(1), "handler timed out"));

		assertThat(this.told).isEmpty();
	}

	@Test
	void aLongReasonIsCutTo2000CharactersForRedisAndTheListeners() {
		List<String> reasons = new ArrayList<>();
		JobOutcomes outcomes = outcomes(new JobLifecycleListener() {
			@Override
			public void onDead(Delivery delivery, String reason) {
				reasons.add(reason);
			}
		});

		outcomes.dead(job(1, JobSettings.NONE), delivery(1), "x".repeat(5000));

		assertThat(this.moves.burials).singleElement().isEqualTo("x".repeat(2000) + "…");
		assertThat(reasons).containsExactlyElementsOf(this.moves.burials);
	}

	@Test
	void listenersHearInTheirOrderAfterMetricsAndAThrowingOneKeepsNoneOfTheOthersFromHearing() {
		JobLifecycleListener throwing = new JobLifecycleListener() {
			@Override
			public void onStart(Delivery delivery) {
				JobOutcomesTests.this.told.add("throwing onStart");
				throw new IllegalStateException("listener bug");
			}

			@Override
			public void onSuccess(Delivery delivery, Duration handlerDuration) {
				JobOutcomesTests.this.told.add("throwing onSuccess");
				throw new IllegalStateException("listener bug");
			}

			@Override
			public void onRetry(Delivery delivery, Throwable error, Instant nextAttemptAt) {
				JobOutcomesTests.this.told.add("throwing onRetry");
				throw new IllegalStateException("listener bug");
			}

			@Override
			public void onDead(Delivery delivery, String reason) {
				JobOutcomesTests.this.told.add("throwing onDead");
				throw new IllegalStateException("listener bug");
			}
		};
		JobOutcomes outcomes = outcomes(new Recording("a"), throwing, new Recording("b"));
		ClaimedJob job = job(1, JobSettings.NONE);

		outcomes.started(job, delivery(1));
		outcomes.succeeded(job, delivery(1), Duration.ZERO);
		outcomes.failed(job, delivery(1), new IllegalStateException(), Duration.ZERO);
		outcomes.dead(job, delivery(1), "gave up");

		assertThat(this.told).containsExactly("a onStart", "throwing onStart", "b onStart", "metrics completed mail",
				"a onSuccess", "throwing onSuccess", "b onSuccess", "retry job-1", "metrics retried mail",
				"a onRetry " + Instant.ofEpochMilli(DUE_AT), "throwing onRetry",
				"b onRetry " + Instant.ofEpochMilli(DUE_AT), "bury job-1", "metrics dead mail", "a onDead",
				"throwing onDead", "b onDead");
	}

	@Test
	void aVersionedListenerHearsTheJobsVersionAndAPlainOneDoesNot() {
		List<String> versions = new ArrayList<>();
		VersionedLifecycleListener versioned = new VersionedLifecycleListener() {
			@Override
			public void onStart(Delivery delivery, @Nullable String version) {
				versions.add("start " + version);
			}

			@Override
			public void onSuccess(Delivery delivery, Duration handlerDuration, @Nullable String version) {
				versions.add("success " + version);
			}

			@Override
			public void onRetry(Delivery delivery, Throwable error, Instant nextAttemptAt, @Nullable String version) {
				versions.add("retry " + version);
			}

			@Override
			public void onDead(Delivery delivery, String reason, @Nullable String version) {
				versions.add("dead " + version);
			}
		};
		JobOutcomes outcomes = outcomes(versioned, new Recording("plain"));
		ClaimedJob job = job(1, new JobSettings(0, 0, 0, "v7"));

		outcomes.started(job, delivery(1));
		outcomes.succeeded(job, delivery(1), Duration.ZERO);
		outcomes.failed(job, delivery(1), new IllegalStateException(), Duration.ZERO);
		outcomes.dead(job, delivery(1), "gave up");

		assertThat(versions).containsExactly("start v7", "success v7", "retry v7", "dead v7");
		assertThat(this.told).contains("plain onStart", "plain onSuccess", "plain onDead");
	}

	private JobOutcomes outcomes(JobLifecycleListener... listeners) {
		return new JobOutcomes(this.moves, SETTINGS, List.of(listeners), this.events, (bucket, dueAt) -> {
		}, null);
	}

	private static ClaimedJob job(int attempt, JobSettings settings) {
		return new ClaimedJob(7, "job:mail:job-1", "mail", "job-1", attempt, 0, 0, "{}", "token", settings, null);
	}

	private static Delivery delivery(int attempt) {
		return new Delivery("job-1", "mail", attempt, Instant.EPOCH, Instant.EPOCH);
	}

	/** Records each call as "name event" in {@link #told}. */
	private final class Recording implements JobLifecycleListener {

		private final String name;

		Recording(String name) {
			this.name = name;
		}

		@Override
		public void onStart(Delivery delivery) {
			JobOutcomesTests.this.told.add(this.name + " onStart");
		}

		@Override
		public void onSuccess(Delivery delivery, Duration handlerDuration) {
			JobOutcomesTests.this.told.add(this.name + " onSuccess");
		}

		@Override
		public void onRetry(Delivery delivery, Throwable error, Instant nextAttemptAt) {
			JobOutcomesTests.this.told.add(this.name + " onRetry " + nextAttemptAt);
		}

		@Override
		public void onDead(Delivery delivery, String reason) {
			JobOutcomesTests.this.told.add(this.name + " onDead");
		}

	}

	/** Retries and burials as Redis would answer them, or not. */
	private final class FakeMoves implements FailedJobMoves {

		final List<Long> retries = new ArrayList<>();

		final List<String> burials = new ArrayList<>();

		volatile boolean claimLost;

		volatile boolean unavailable;

		volatile boolean earliest;

		@Override
		public Optional<ScheduleOutcome> retry(ClaimedJob job, long backoffMillis, String reason) {
			answerable();
			JobOutcomesTests.this.told.add("retry " + job.id());
			this.retries.add(backoffMillis);
			return this.claimLost ? Optional.empty()
					: Optional.of(new ScheduleOutcome("DELAYED", Long.toString(DUE_AT), this.earliest));
		}

		@Override
		public long bury(ClaimedJob job, String reason) {
			answerable();
			JobOutcomesTests.this.told.add("bury " + job.id());
			this.burials.add(reason);
			return this.claimLost ? 0 : DUE_AT;
		}

		private void answerable() {
			if (this.unavailable) {
				throw new RedeqUnavailableException("Redis did not answer within 1s", new TimeoutException());
			}
		}

	}

}
