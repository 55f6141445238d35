package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.RedeqUnavailableException;
import io.redeq.internal.redis.ClaimedJob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Lease renewal on a fake store whose replies the test sends: one extend per bucket for
 * running handlers and for completions Redis has not answered, a lease lost mid-run
 * marked once and no longer renewed, a loss judged when the reply arrives (a job that
 * finished meanwhile ends its completion instead), and a renewal Redis fails or cannot be
 * sent tried again at the next round.
 */
class LeaseKeeperTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final FakeRenewals renewals = new FakeRenewals();

	private final FakeCompletions completions = new FakeCompletions();

	private final Set<RunningJob> running = new CopyOnWriteArraySet<>();

	private final LeaseKeeper keeper = new LeaseKeeper(this.renewals, LEASE, this.running, this.completions);

	private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();

	@AfterEach
	void shutdown() {
		this.keeper.stop();
		this.timers.shutdownNow();
	}

	@Test
	void oneRoundRenewsRunningAndUnconfirmedJobsWithOneExtendPerBucket() {
		RunningJob a = running(1, "a");
		RunningJob settled = running(2, "settled");
		settled.settle();
		RunningJob lost = running(1, "lost");
		lost.markLeaseLost();
		running(2, "b");
		this.completions.unconfirmed.add(job(1, "finished"));

		this.keeper.renew();

		assertThat(this.renewals.calls).containsExactly("1 for 30000 ms: [a, finished]", "2 for 30000 ms: [b]");
		assertThat(a.leaseLost()).isFalse();
	}

	@Test
	void aLeaseLostMidRunIsMarkedOnceAndNoLongerRenewed() {
		RunningJob job = running(1, "a");
		job.begin(Thread.currentThread());

		this.keeper.renew();
		this.renewals.answer(0, false);

		assertThat(job.leaseLost()).isTrue();
		assertThat(this.completions.lost).as("a running handler's loss is not a completion's").isEmpty();
		this.keeper.renew();
		assertThat(this.renewals.calls).hasSize(1);
	}

	@Test
	void aJobThatFinishedBeforeTheRefusalArrivedEndsItsCompletionInstead() {
		RunningJob job = running(1, "a");
		job.begin(Thread.currentThread());
		this.keeper.renew();

		job.settle();
		this.running.remove(job);
		this.renewals.answer(0, false);

		assertThat(job.leaseLost()).isFalse();
		assertThat(this.completions.lost).containsExactly(job.job);
	}

	@Test
	void aRefusedRenewalOfAnUnconfirmedCompletionEndsItAndAnAcceptedOneDoesNot() {
		this.completions.unconfirmed.add(job(1, "kept"));
		this.completions.unconfirmed.add(job(1, "gone"));

		this.keeper.renew();
		this.renewals.answer(0, true, false);

		assertThat(this.completions.lost).extracting(ClaimedJob::id).containsExactly("gone");
	}

	@Test
	void aRenewalRedisFailsOrThatCannotBeSentIsTriedAgainAtTheNextRound() {
		RunningJob job = running(1, "a");
		running(2, "b");
		this.renewals.notSent.add(1);

		this.keeper.renew();
		this.renewals.replies.get(0)
			.completeExceptionally(new RedeqUnavailableException("Redis did not answer", new TimeoutException()));

		assertThat(this.renewals.calls).as("bucket 2 renewed though bucket 1 had no connection")
			.containsExactly("2 for 30000 ms: [b]");
		assertThat(job.leaseLost()).isFalse();
		this.renewals.notSent.clear();
		this.keeper.renew();
		assertThat(this.renewals.calls).hasSize(3);
	}

	@Test
	void startRenewsEveryThirdOfTheLeaseUntilStopped() {
		LeaseKeeper quick = new LeaseKeeper(this.renewals, Duration.ofMillis(60), this.running, this.completions);
		running(1, "a");

		quick.start(this.timers);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.renewals.calls.size() >= 3);
		quick.stop();

		int renewed = this.renewals.calls.size();
		await().during(Duration.ofMillis(200))
			.atMost(Duration.ofSeconds(2))
			.until(() -> this.renewals.calls.size() <= renewed + 1);
		assertThat(this.renewals.calls).allMatch((call) -> call.equals("1 for 60 ms: [a]"));
	}

	private RunningJob running(int bucket, String id) {
		RunningJob job = new RunningJob(job(bucket, id));
		this.running.add(job);
		return job;
	}

	private static ClaimedJob job(int bucket, String id) {
		return new ClaimedJob(bucket, "job:mail:" + id, "mail", id, 1, 0, 0, "{}", "token");
	}

	/** Extend scripts whose replies the test sends. */
	private static final class FakeRenewals implements LeaseRenewals {

		final List<String> calls = new CopyOnWriteArrayList<>();

		final List<CompletableFuture<List<Boolean>>> replies = new CopyOnWriteArrayList<>();

		final List<Integer> notSent = new ArrayList<>();

		@Override
		public CompletionStage<List<Boolean>> extend(int bucket, long leaseMillis, List<ClaimedJob> jobs) {
			if (this.notSent.contains(bucket)) {
				throw new RedeqUnavailableException("no connection", new IllegalStateException());
			}
			this.calls.add(bucket + " for " + leaseMillis + " ms: " + jobs.stream().map(ClaimedJob::id).toList());
			CompletableFuture<List<Boolean>> reply = new CompletableFuture<>();
			this.replies.add(reply);
			return reply;
		}

		void answer(int call, Boolean... renewed) {
			this.replies.get(call).complete(List.of(renewed));
		}

	}

	/** Completions waiting for Redis, and those a refused renewal ended. */
	private static final class FakeCompletions implements LeaseKeeper.Completions {

		final List<ClaimedJob> unconfirmed = new CopyOnWriteArrayList<>();

		final List<ClaimedJob> lost = new CopyOnWriteArrayList<>();

		@Override
		public Collection<ClaimedJob> unconfirmed() {
			return this.unconfirmed;
		}

		@Override
		public void claimLost(ClaimedJob job) {
			this.lost.add(job);
		}

	}

}
