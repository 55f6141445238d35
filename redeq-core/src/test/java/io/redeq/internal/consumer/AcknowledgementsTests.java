package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.RedeqException;
import io.redeq.RedeqUnavailableException;
import io.redeq.internal.redis.ClaimResult;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.CompletionReply;
import io.redeq.internal.redis.SlotOffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Batched completions on a fake store and a test clock for rides: jobs finishing together
 * go in one script per bucket, a batch Redis fails is retried until Redis is back while
 * the jobs stay unconfirmed (their leases renewed), each answer is told once and says
 * whether an unanswered attempt most likely completed the job, a failure that will not
 * change is given up, completions ride a near hand-off once they have waited and go alone
 * after, and close waits for a ride under way and then for nothing.
 */
class AcknowledgementsTests {

	private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();

	private final AtomicLong nanos = new AtomicLong(1_000);

	private final FakeScripts scripts = new FakeScripts();

	private final FakeNextJobs nextJobs = new FakeNextJobs();

	/** Each outcome told, as "id answer". */
	private final List<String> told = new CopyOnWriteArrayList<>();

	private final Acknowledgements acknowledgements = acknowledgements(Runnable::run);

	@AfterEach
	void shutdown() {
		this.timers.shutdownNow();
	}

	@Test
	void jobsFinishingTogetherCompleteInOneScriptPerBucket() {
		this.acknowledgements.add(job(1, "a"), outcome("a"));
		this.acknowledgements.add(job(2, "b"), outcome("b"));
		this.acknowledgements.complete(job(1, "c"), outcome("c"));

		await().atMost(Duration.ofSeconds(5)).until(() -> this.told.size() == 3);

		assertThat(this.scripts.calls).containsExactly("1: [a, c]", "2: [b]");
		assertThat(this.told).containsExactlyInAnyOrder("a COMPLETED", "b COMPLETED", "c COMPLETED");
		assertThat(this.acknowledgements.unconfirmed()).isEmpty();
	}

	@Test
	void aBatchRedisFailsIsRetriedUntilRedisIsBackWithTheJobUnconfirmedMeanwhile() {
		this.scripts.failure = unavailable();

		this.acknowledgements.complete(job(1, "a"), outcome("a"));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.scripts.calls.size() >= 2);

		assertThat(this.acknowledgements.unconfirmed()).extracting(ClaimedJob::id).containsExactly("a");
		assertThat(this.told).isEmpty();
		this.scripts.failure = null;
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.told.isEmpty());
		assertThat(this.told).containsExactly("a COMPLETED");
		assertThat(this.acknowledgements.unconfirmed()).isEmpty();
	}

	@Test
	void aClaimGoneAfterAnUnansweredAttemptIsToldApartFromALostOne() {
		this.scripts.gone.add("a");
		this.scripts.gone.add("b");
		this.scripts.failure = unavailable();
		this.acknowledgements.complete(job(1, "a"), outcome("a"));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.scripts.calls.size() >= 1);

		this.scripts.failure = null;
		this.acknowledgements.complete(job(2, "b"), outcome("b"));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.told.size() == 2);

		assertThat(this.told).containsExactlyInAnyOrder("a GONE_AFTER_UNANSWERED_ATTEMPT", "b CLAIM_LOST");
	}

	@Test
	void anErrorReplyIsRetriedAndCannotHaveLanded() {
		this.scripts.gone.add("a");
		this.scripts.failure = new RedeqException("READONLY", new RedisException("READONLY replica"));
		this.acknowledgements.complete(job(1, "a"), outcome("a"));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.scripts.calls.size() >= 1);

		this.scripts.failure = null;
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.told.isEmpty());

		assertThat(this.told).containsExactly("a CLAIM_LOST");
	}

	@Test
	void aFailureThatWillNotChangeIsGivenUpAndLeftToTheLease() {
		this.scripts.failure = new IllegalStateException("client shut down");

		this.acknowledgements.complete(job(1, "a"), outcome("a"));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.acknowledgements.unconfirmed().isEmpty());

		await().during(Duration.ofMillis(300))
			.atMost(Duration.ofSeconds(2))
			.until(() -> this.scripts.calls.size() == 1);
		assertThat(this.told).isEmpty();
	}

	@Test
	void aRenewalThatFindsTheClaimGoneEndsAWaitingCompletion() {
		// An error reply: the attempt cannot have landed, whichever answer comes first.
		this.scripts.failure = new RedeqException("LOADING", new RedisException("LOADING dataset"));
		this.acknowledgements.complete(job(1, "a"), outcome("a"));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.scripts.calls.size() >= 1);

		this.acknowledgements.claimLost(job(1, "a"));

		assertThat(this.acknowledgements.unconfirmed()).isEmpty();
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.told.isEmpty());
		assertThat(this.told).containsExactly("a CLAIM_LOST");
	}

	@Test
	void closeRetriesUntilItsDeadlineAndReturnsTheJobsRedisNeverAnswered() {
		this.scripts.failure = unavailable();
		this.acknowledgements.add(job(1, "a"), outcome("a"));

		List<ClaimedJob> unanswered = this.acknowledgements.flush(System.nanoTime() + Duration.ofMillis(300).toNanos());

		assertThat(unanswered).extracting(ClaimedJob::id).containsExactly("a");
		assertThat(this.scripts.calls.size()).as("retried while closing").isGreaterThan(1);
		this.scripts.failure = null;
		assertThat(this.acknowledgements.flush(System.nanoTime() + Duration.ofSeconds(5).toNanos())).isEmpty();
		assertThat(this.told).containsExactly("a COMPLETED");
	}

	@Test
	void completionsRideANearHandOffOnceTheyHaveWaitedAndOnlyThoseOfItsBucket() {
		this.nextJobs.handOffNear = true;
		this.acknowledgements.add(job(1, "a"), outcome("a"));
		this.acknowledgements.add(job(2, "b"), outcome("b"));

		assertThat(this.acknowledgements.takeForRide(1)).as("not waited yet").isEmpty();
		this.nanos.addAndGet(Acknowledgements.RIDE_AFTER.toNanos());
		List<PendingCompletion> riding = this.acknowledgements.takeForRide(1);

		assertThat(riding).extracting((pending) -> pending.job.id()).containsExactly("a");
		assertThat(this.acknowledgements.unconfirmed()).as("renewed while riding").hasSize(2);
		this.acknowledgements.rode(riding, List.of(false));
		assertThat(this.told).containsExactly("a CLAIM_LOST");
		assertThat(this.scripts.calls).isEmpty();
	}

	@Test
	void aCompletionWaitingForARideGoesAloneOnceItHasWaitedLongEnough() {
		this.nextJobs.handOffNear = true;
		this.acknowledgements.complete(job(1, "a"), outcome("a"));

		await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(2)).until(() -> this.scripts.calls.isEmpty());
		this.nanos.addAndGet(Acknowledgements.RIDE_WAIT.toNanos());
		this.acknowledgements.send();

		await().atMost(Duration.ofSeconds(5)).until(() -> !this.told.isEmpty());
		assertThat(this.scripts.calls).containsExactly("1: [a]");
	}

	@Test
	void aRideWithoutAUsableReplyIsSentAloneAndMayHaveLanded() {
		this.nextJobs.handOffNear = true;
		this.scripts.gone.add("a");
		this.acknowledgements.add(job(1, "a"), outcome("a"));
		this.nanos.addAndGet(Acknowledgements.RIDE_WAIT.toNanos());
		List<PendingCompletion> riding = this.acknowledgements.takeForRide(1);

		this.acknowledgements.rideFailed(riding);

		await().atMost(Duration.ofSeconds(5)).until(() -> !this.told.isEmpty());
		assertThat(this.told).containsExactly("a GONE_AFTER_UNANSWERED_ATTEMPT");
		assertThat(this.scripts.calls).containsExactly("1: [a]");
	}

	@Test
	void noCompletionRidesWhileARetryIsScheduledAndAtMostFiveHundredRideOneCall() {
		this.scripts.failure = unavailable();
		this.acknowledgements.complete(job(1, "failed"), outcome("failed"));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.scripts.calls.size() >= 1);
		this.nanos.addAndGet(Acknowledgements.RIDE_AFTER.toNanos());
		assertThat(this.acknowledgements.takeForRide(1)).as("Redis just failed it").isEmpty();

		Acknowledgements many = acknowledgements(Runnable::run);
		for (int i = 0; i < Acknowledgements.MAX_RIDING + 1; i++) {
			many.add(job(1, "job-" + i), outcome("job-" + i));
		}
		this.nanos.addAndGet(Acknowledgements.RIDE_AFTER.toNanos());
		assertThat(many.takeForRide(1)).hasSize(Acknowledgements.MAX_RIDING);
	}

	@Test
	void closeWhileAHandOffCarriesCompletionsWaitsForItsAnswerAndNoLonger() throws Exception {
		Acknowledgements closing = acknowledgements((task) -> {
			throw new RejectedExecutionException("workers gone");
		});
		this.nextJobs.handOffNear = true;
		closing.add(job(1, "a"), outcome("a"));
		this.nanos.addAndGet(Acknowledgements.RIDE_AFTER.toNanos());
		List<PendingCompletion> riding = closing.takeForRide(1);

		CompletableFuture<List<ClaimedJob>> flushed = CompletableFuture
			.supplyAsync(() -> closing.flush(System.nanoTime() + Duration.ofSeconds(10).toNanos()));
		await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(2)).until(() -> !flushed.isDone());
		closing.rode(riding, List.of(true));

		assertThat(flushed.get(5, TimeUnit.SECONDS)).isEmpty();
		assertThat(this.told).as("told on the migrator's thread: the workers are gone").containsExactly("a COMPLETED");
		assertThat(this.scripts.calls).isEmpty();
	}

	@Test
	void closeSendsCompletionsAtOnceInsteadOfWaitingForARide() {
		this.nextJobs.handOffNear = true;
		this.acknowledgements.add(job(1, "a"), outcome("a"));

		assertThat(this.acknowledgements.flush(System.nanoTime() + Duration.ofSeconds(5).toNanos())).isEmpty();

		assertThat(this.scripts.calls).containsExactly("1: [a]");
		assertThat(this.told).containsExactly("a COMPLETED");
	}

	private Acknowledgements acknowledgements(Executor retries) {
		return new Acknowledgements(this.scripts, "mail", this.timers, retries, this.nextJobs, this.nanos::get);
	}

	private PendingCompletion.Outcome outcome(String id) {
		return (answer) -> this.told.add(id + " " + answer);
	}

	private static ClaimedJob job(int bucket, String id) {
		return new ClaimedJob(bucket, "job:mail:" + id, "mail", id, 1, 0, 0, "{}", "token");
	}

	private static RedeqUnavailableException unavailable() {
		return new RedeqUnavailableException("Redis did not answer within 1s", new TimeoutException());
	}

	/** Complete scripts as Redis would answer them, or fail them. */
	private static final class FakeScripts implements CompletionScripts {

		final List<String> calls = new CopyOnWriteArrayList<>();

		/** Ids whose claim is gone: the script answers false for them. */
		final List<String> gone = new CopyOnWriteArrayList<>();

		volatile @Nullable RuntimeException failure;

		@Override
		public CompletionStage<CompletionReply> completeAll(int bucket, List<ClaimedJob> jobs,
				@Nullable SlotOffer claim) {
			this.calls.add(bucket + ": " + jobs.stream().map(ClaimedJob::id).toList());
			RuntimeException failure = this.failure;
			if (failure != null) {
				return CompletableFuture.failedFuture(failure);
			}
			List<Boolean> completed = new ArrayList<>();
			jobs.forEach((job) -> completed.add(!this.gone.contains(job.id())));
			return CompletableFuture.completedFuture(new CompletionReply(completed, null));
		}

		@Override
		public <T> T await(CompletionStage<T> reply, String operation) {
			try {
				return reply.toCompletableFuture().get(1, TimeUnit.SECONDS);
			}
			catch (ExecutionException ex) {
				throw (RuntimeException) ex.getCause();
			}
			catch (InterruptedException | TimeoutException ex) {
				throw new RedeqUnavailableException("no answer to " + operation, ex);
			}
		}

	}

	/** A consumer with no free slots, whose hand-offs the test says are near or not. */
	private static final class FakeNextJobs implements Acknowledgements.NextJobs {

		volatile boolean handOffNear;

		@Override
		public boolean mayClaimIn(int bucket) {
			return false;
		}

		@Override
		public HandOffs.@Nullable Offer offerFor(int bucket) {
			return null;
		}

		@Override
		public boolean handOffNear(int bucket) {
			return this.handOffNear;
		}

		@Override
		public void claimed(int bucket, ClaimResult result) {
		}

	}

}
