package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;

import io.redeq.Backoff;
import io.redeq.RedeqUnavailableException;
import io.redeq.internal.redis.ClaimedJob;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hand-backs on close, on a fake store: jobs go back bucket by bucket with the attempt
 * refunded unless their handler was interrupted, a job still running stays, one bucket
 * Redis refuses keeps none of the others from going back, and once Redis does not answer
 * nothing more waits for it: what was not taken back is returned, to run again when its
 * lease expires.
 */
class HandBacksTests {

	private static final ConsumerSettings SETTINGS = new ConsumerSettings("mail", String.class, 1, 3,
			Duration.ofSeconds(30), Duration.ofSeconds(30),
			new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(1), 0), null);

	private final FakeReleases releases = new FakeReleases();

	private final HandBacks handBacks = new HandBacks(this.releases, SETTINGS, Duration.ofSeconds(10));

	@Test
	void anUnstartedJobGoesBackWithItsAttemptRefunded() {
		this.handBacks.unstarted(job(1, "a"));

		assertThat(this.releases.calls).containsExactly("mail/1 [a] refunded");
	}

	@Test
	void anUnstartedJobRedisDoesNotTakeBackIsLeftToItsLease() {
		this.releases.unavailable.add(1);

		this.handBacks.unstarted(job(1, "a"));

		assertThat(this.releases.calls).containsExactly("mail/1 [a] refunded");
	}

	@Test
	void prefetchedJobsGoBackBucketByBucketInOneCallEach() {
		List<ClaimedJob> notHandedBack = this.handBacks
			.waiting(List.of(job(1, "a"), job(2, "b"), job(1, "c"), job(3, "d")));

		assertThat(notHandedBack).isEmpty();
		assertThat(this.releases.calls).containsExactly("mail/1 [a, c] refunded", "mail/2 [b] refunded",
				"mail/3 [d] refunded");
	}

	@Test
	void aBucketRedisRefusesKeepsNoneOfTheOthersFromGoingBack() {
		this.releases.refused.add(2);

		List<ClaimedJob> notHandedBack = this.handBacks.waiting(List.of(job(1, "a"), job(2, "b"), job(3, "c")));

		assertThat(notHandedBack).extracting(ClaimedJob::id).containsExactly("b");
		assertThat(this.releases.calls).hasSize(3);
	}

	@Test
	void onceRedisDoesNotAnswerNoOtherBucketWaitsForIt() {
		this.releases.unavailable.add(2);

		List<ClaimedJob> notHandedBack = this.handBacks
			.waiting(List.of(job(1, "a"), job(2, "b"), job(3, "c"), job(4, "d")));

		assertThat(notHandedBack).extracting(ClaimedJob::id).containsExactly("b", "c", "d");
		assertThat(this.releases.calls).as("one command timeout, not one per bucket")
			.containsExactly("mail/1 [a] refunded", "mail/2 [b] refunded");
	}

	@Test
	void closeRefundsNeverStartedJobsCountsInterruptedOnesAndLeavesRunningOnesInFlight() {
		Workers.Unfinished unfinished = new Workers.Unfinished(List.of(job(1, "never")), List.of(job(1, "interrupted")),
				List.of(job(1, "running")));

		assertThat(this.handBacks.unfinished(unfinished)).isEmpty();

		assertThat(this.releases.calls).containsExactly("mail/1 [never] refunded", "mail/1 [interrupted] counted");
	}

	@Test
	void closeDoesNotWaitASecondTimeForRedisOnceItDidNotAnswer() {
		this.releases.unavailable.add(1);
		Workers.Unfinished unfinished = new Workers.Unfinished(List.of(job(1, "never"), job(2, "never-2")),
				List.of(job(2, "interrupted")), List.of());

		List<ClaimedJob> notHandedBack = this.handBacks.unfinished(unfinished);

		assertThat(notHandedBack).extracting(ClaimedJob::id).containsExactly("never", "never-2", "interrupted");
		assertThat(this.releases.calls).containsExactly("mail/1 [never] refunded");
	}

	private static ClaimedJob job(int bucket, String id) {
		return new ClaimedJob(bucket, "job:mail:" + id, "mail", id, 1, 0, 0, "{}", "token");
	}

	/** Release scripts as Redis would answer them, per bucket. */
	private static final class FakeReleases implements JobReleases {

		final List<String> calls = new ArrayList<>();

		final List<Integer> unavailable = new ArrayList<>();

		final List<Integer> refused = new ArrayList<>();

		@Override
		public void releaseAndSignal(String topic, int bucket, List<ClaimedJob> jobs, boolean notStarted) {
			this.calls.add(topic + "/" + bucket + " " + jobs.stream().map(ClaimedJob::id).toList()
					+ (notStarted ? " refunded" : " counted"));
			if (this.unavailable.contains(bucket)) {
				throw new RedeqUnavailableException("Redis did not answer within 1s", new TimeoutException());
			}
			if (this.refused.contains(bucket)) {
				throw new IllegalStateException("ERR release refused");
			}
		}

	}

}
