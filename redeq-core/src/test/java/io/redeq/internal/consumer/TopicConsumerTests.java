package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.Backoff;
import io.redeq.Delivery;
import io.redeq.JobHandler;
import io.redeq.RedeqException;
import io.redeq.RedeqOptions;
import io.redeq.RedeqUnavailableException;
import io.redeq.internal.JobEvents;
import io.redeq.internal.codec.JacksonPayloadCodec;
import io.redeq.internal.control.RateLimit;
import io.redeq.internal.control.StartLimiter;
import io.redeq.internal.observation.ProcessObservations;
import io.redeq.internal.redis.ClaimResult;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.CompletionReply;
import io.redeq.internal.redis.ScheduleOutcome;
import io.redeq.internal.redis.SlotOffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

// Over 400 lines: its fake Redis (claims, ready sets, completions, renewals, hand-backs
// and the signal list of one topic) is a third of it, kept here since no other test uses it.
/**
 * A subscription on a fake Redis and a test clock: the fetcher claims READY jobs into
 * free slots and starts them in score order across buckets, tries a claim Redis refused
 * again without handing anything back, hands back what a claim whose reply was lost (its
 * own or a hand-off's) may have taken before it claims again, claims nothing while the
 * topic is paused; a prefetched job whose lease is lost never runs and a running one
 * whose lease is lost is renewed no more; a hand-off starts its jobs, their completions
 * ride the next and every slot comes back, and close while a hand-off starts hands its
 * jobs back to READY, with the attempt refunded.
 */
class TopicConsumerTests {

	private static final Duration WAIT = Duration.ofSeconds(5);

	private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);

	private final FakeRedis redis = new FakeRedis();

	/** Payloads in the order their handlers began. */
	private final List<String> handled = new CopyOnWriteArrayList<>();

	/** Held by each handler until released. */
	private final CountDownLatch handlersMayEnd = new CountDownLatch(1);

	private final AtomicBoolean paused = new AtomicBoolean();

	private final List<TopicConsumer> consumers = new ArrayList<>();

	@AfterEach
	void close() {
		this.handlersMayEnd.countDown();
		this.consumers.forEach(TopicConsumer::close);
		this.timers.shutdownNow();
	}

	@Test
	void claimsReadyJobsIntoFreeSlotsAndCompletesThem() {
		this.redis.ready(0, "a", 10);
		this.redis.ready(0, "b", 20);
		this.redis.ready(0, "c", 30);
		TopicConsumer consumer = consumer(1, 2, this::quickly);

		consumer.start();

		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(this.redis.completed).as(this.redis.calls.toString()).hasSize(3));
		assertThat(this.handled).containsExactlyInAnyOrder("a", "b", "c");
	}

	@Test
	void startsTheJobsOfSeveralBucketsInScoreOrder() {
		this.redis.ready(0, "first", 10);
		this.redis.ready(1, "second", 20);
		this.redis.ready(0, "third", 30);
		this.redis.ready(1, "fourth", 40);
		TopicConsumer consumer = consumer(2, 1, this::quickly);

		consumer.start();

		await().atMost(WAIT).until(() -> this.handled.size() == 4);
		assertThat(this.handled).containsExactly("first", "second", "third", "fourth");
	}

	@Test
	void aClaimRedisRefusesIsTriedAgainWithoutHandingAnythingBack() {
		this.redis.ready(0, "a", 10);
		this.redis.claimFailures.add(new RedeqException("ERR claim refused", new RedisException("ERR claim refused")));
		TopicConsumer consumer = consumer(1, 1, this::quickly);

		consumer.start();

		await().atMost(WAIT).until(() -> this.handled.contains("a"));
		assertThat(this.redis.calls).filteredOn((call) -> call.startsWith("claim ")).hasSizeGreaterThanOrEqualTo(2);
		assertThat(this.redis.calls).noneMatch((call) -> call.startsWith("releaseClaim"));
	}

	@Test
	void whatAClaimWithoutAReplyTookIsHandedBackBeforeTheNextClaim() {
		this.redis.claimFailures
			.add(new RedeqUnavailableException("Redis did not answer within 1s", new TimeoutException()));
		this.redis.ready(0, "a", 10);
		TopicConsumer consumer = consumer(1, 1, this::quickly);

		consumer.start();

		await().atMost(WAIT).until(() -> this.handled.contains("a"));
		List<String> claims = this.redis.calls.stream()
			.filter((call) -> call.startsWith("claim ") || call.startsWith("releaseClaim"))
			.toList();
		String lostToken = token(claims.get(0));
		assertThat(claims.get(1)).isEqualTo("releaseClaim 0 " + lostToken);
		assertThat(claims.get(2)).startsWith("claim 0").doesNotContain(lostToken);
	}

	@Test
	void aPausedTopicClaimsNothingUntilItIsResumed() {
		this.paused.set(true);
		this.redis.ready(0, "a", 10);
		TopicConsumer consumer = consumer(1, 1, this::quickly);

		consumer.start();

		await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> this.redis.calls.isEmpty());
		this.paused.set(false);
		await().atMost(WAIT).until(() -> this.handled.contains("a"));
	}

	@Test
	void aPrefetchedJobWhoseLeaseIsLostNeverRunsHere() {
		// Quick handlers first: the prefetch opens only for them.
		for (int i = 0; i < 5; i++) {
			this.redis.ready(0, "quick-" + i, i);
		}
		this.redis.leasesLost.add("waiting");
		TopicConsumer consumer = consumer(1, 1, (payload, delivery) -> {
			if ("running".equals(payload)) {
				untilReleased(payload, delivery);
			}
			else {
				quickly(payload, delivery);
			}
		});
		consumer.start();
		await().atMost(WAIT).until(() -> this.redis.completed.size() == 5);

		synchronized (this.redis) {
			this.redis.ready(0, "running", 10);
			this.redis.ready(0, "waiting", 20);
		}
		await().atMost(WAIT).until(() -> this.redis.renewalsRefused.contains("waiting"));
		this.handlersMayEnd.countDown();

		await().atMost(WAIT).until(() -> this.redis.completed.contains("running"));
		await().during(Duration.ofMillis(200)).atMost(WAIT).until(() -> !this.handled.contains("waiting"));
		assertThat(this.redis.completed).doesNotContain("waiting");
	}

	@Test
	void aRunningJobWhoseLeaseIsLostIsRenewedNoMore() {
		this.redis.ready(0, "a", 10);
		this.redis.leasesLost.add("a");
		TopicConsumer consumer = consumer(1, 1, this::untilReleased);

		consumer.start();
		await().atMost(WAIT).until(() -> this.redis.renewalsRefused.contains("a"));
		long renewals = this.redis.renewals.get();
		await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> this.redis.renewals.get() == renewals);
		assertThat(this.redis.calls).as("neither handed back nor retried while its handler runs")
			.allMatch((call) -> call.startsWith("claim "));
	}

	@Test
	void aHandOffStartsItsJobsAndEverySlotComesBack() {
		TopicConsumer consumer = consumer(1, 2, this::quickly);
		HandOffs.Offer offer = consumer.offerSlots(new int[] { 0 }).get(0);
		assertThat(offer).isNotNull();
		int slots = offer.request().slots();
		assertThat(slots).as("at least the handlers' slots").isGreaterThanOrEqualTo(2);

		offer.accept(List.of(this.redis.claimed(0, "a", 10, offer.request().token())), 10_000, nanos());

		await().atMost(WAIT).until(() -> this.handled.contains("a"));
		await().atMost(WAIT).until(() -> {
			HandOffs.Offer next = consumer.offerSlots(new int[] { 0 }).get(0);
			if (next == null) {
				return false;
			}
			// The next migrate call: nothing due, and it completes what rides on it.
			next.accept(List.of(), Collections.nCopies(next.completions().size(), true), 10_000, nanos());
			return next.request().slots() >= slots; // more once the prefetch opens
		});
	}

	@Test
	void aHandOffWithoutAReplyHandsBackItsTokenBeforeTheNextClaim() {
		TopicConsumer consumer = consumer(1, 1, this::quickly);
		HandOffs.Offer offer = consumer.offerSlots(new int[] { 0 }).get(0);
		assertThat(offer).isNotNull();
		offer.fail(new RedeqUnavailableException("Redis did not answer within 1s", new TimeoutException()));
		this.redis.ready(0, "a", 10);

		consumer.start();

		await().atMost(WAIT).until(() -> this.handled.contains("a"));
		assertThat(this.redis.calls.get(0)).isEqualTo("releaseClaim 0 " + offer.request().token());
	}

	@Test
	void closeWhileAHandOffStartsHandsItsJobsBackToReadyWithTheAttemptRefunded() {
		TopicConsumer consumer = consumer(1, 2, this::untilReleased);
		HandOffs.Offer first = consumer.offerSlots(new int[] { 0 }).get(0);
		assertThat(first).isNotNull();
		assertThat(first.request().slots()).isEqualTo(2);
		first.accept(List.of(this.redis.claimed(0, "running", 10, first.request().token())), 10_000, nanos());
		HandOffs.Offer late = consumer.offerSlots(new int[] { 0 }).get(0);
		assertThat(late).isNotNull();

		// Close waits for the running handler: the workers still take jobs meanwhile.
		Thread closing = new Thread(consumer::close);
		closing.start();
		await().atMost(WAIT).until(() -> !consumer.isRunning());
		late.accept(List.of(this.redis.claimed(0, "late", 20, late.request().token())), 10_000, nanos());
		this.handlersMayEnd.countDown();
		await().atMost(WAIT).until(() -> !closing.isAlive());

		assertThat(this.handled).containsExactly("running");
		assertThat(this.redis.calls).contains("release 0 [late] refunded");
		assertThat(consumer.offerSlots(new int[] { 0 })).as("no offer once closed").containsOnlyNulls();
	}

	private TopicConsumer consumer(int buckets, int concurrency, JobHandler<Object> handler) {
		RedeqOptions options = RedeqOptions.builder()
			.buckets(buckets)
			.blocking(false)
			.shutdownTimeout(Duration.ofSeconds(2))
			.commandTimeout(Duration.ofSeconds(1))
			.build();
		ConsumerSettings settings = new ConsumerSettings("mail", String.class, concurrency, 3, Duration.ofMinutes(1),
				Duration.ofMillis(150), new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(1), 0), null);
		// The store and the pauses are the ports given beside it.
		ConsumerContext context = new ConsumerContext(options, null, new JacksonPayloadCodec(null), JobEvents.NONE,
				List.of(), (bucket, dueAt) -> {
				}, this.timers, "node-1", LocalWorkSignals.NONE, ProcessObservations.OFF, null, new HandOffs(true));
		TopicConsumer consumer = new TopicConsumer(settings, handler, context, this.redis, (topic) -> this.paused.get(),
				this::nanos, () -> {
				});
		this.consumers.add(consumer);
		return consumer;
	}

	private void quickly(Object payload, Delivery delivery) {
		this.handled.add((String) payload);
	}

	private void untilReleased(Object payload, Delivery delivery) throws InterruptedException {
		this.handled.add((String) payload);
		this.handlersMayEnd.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
	}

	/**
	 * The consumer's clock, and Redis's: a running one, since completions wait for a ride
	 * only so long.
	 */
	private long nanos() {
		return System.nanoTime();
	}

	private static String token(String claim) {
		return claim.substring(claim.indexOf("token ") + "token ".length());
	}

	/**
	 * Redis as one topic's consumer sees it: per bucket its READY jobs, lowest score
	 * first, the jobs claimed under each token, and every call made, in order.
	 */
	private final class FakeRedis implements ConsumerStore {

		final List<String> calls = new CopyOnWriteArrayList<>();

		final List<String> completed = new CopyOnWriteArrayList<>();

		/** Claims to fail, one each, before claims take jobs again. */
		final List<RuntimeException> claimFailures = new CopyOnWriteArrayList<>();

		/** Jobs whose lease another instance took: renewals and completions refused. */
		final Set<String> leasesLost = new HashSet<>();

		final List<String> renewalsRefused = new CopyOnWriteArrayList<>();

		final AtomicLong renewals = new AtomicLong();

		private final Map<Integer, List<ClaimedJob>> ready = new HashMap<>();

		private final Map<String, List<ClaimedJob>> claimedUnder = new HashMap<>();

		synchronized void ready(int bucket, String id, long dueAt) {
			List<ClaimedJob> jobs = this.ready.computeIfAbsent(bucket, (b) -> new ArrayList<>());
			jobs.add(claimed(bucket, id, dueAt, ""));
			jobs.sort(Comparator.comparingDouble(ClaimedJob::readyScore));
		}

		ClaimedJob claimed(int bucket, String id, long dueAt, String token) {
			return new ClaimedJob(bucket, "job:mail:" + id, "mail", id, 1, 0, dueAt, "\"" + id + "\"", token);
		}

		@Override
		public synchronized CompletionStage<ClaimResult> claim(int bucket, String topic, int max, long leaseMillis,
				String token, int maxAttempts, double maxScore) {
			this.calls.add("claim " + bucket + " max " + max + " token " + token);
			RuntimeException failure = this.claimFailures.isEmpty() ? null : this.claimFailures.remove(0);
			if (failure != null && !(failure instanceof RedeqUnavailableException)) {
				return CompletableFuture.failedFuture(failure); // refused: nothing
																// written
			}
			List<ClaimedJob> jobs = this.ready.getOrDefault(bucket, new ArrayList<>());
			List<ClaimedJob> taken = new ArrayList<>();
			while (taken.size() < max && !jobs.isEmpty() && jobs.get(0).readyScore() <= maxScore) {
				ClaimedJob job = jobs.remove(0);
				taken.add(claimed(bucket, job.id(), job.dueAt(), token));
			}
			this.claimedUnder.put(token, taken);
			if (failure != null) {
				return CompletableFuture.failedFuture(failure); // ran, but the reply was
																// lost
			}
			return CompletableFuture.completedFuture(new ClaimResult(now(), jobs.size(), taken));
		}

		@Override
		public synchronized List<CompletionStage<double[]>> readyScores(String topic, List<Integer> buckets,
				int count) {
			return buckets.stream()
				.map((bucket) -> (CompletionStage<double[]>) CompletableFuture
					.completedFuture(this.ready.getOrDefault(bucket, List.of())
						.stream()
						.limit(count)
						.mapToDouble(ClaimedJob::readyScore)
						.toArray()))
				.toList();
		}

		@Override
		public <T> T await(CompletionStage<T> reply, String operation) {
			try {
				return reply.toCompletableFuture().join();
			}
			catch (CompletionException ex) {
				throw (RuntimeException) ex.getCause();
			}
		}

		@Override
		public synchronized CompletionStage<CompletionReply> completeAll(int bucket, List<ClaimedJob> jobs,
				@Nullable SlotOffer claim) {
			this.calls.add("complete " + bucket + " " + jobs.stream().map(ClaimedJob::id).toList());
			List<Boolean> answers = new ArrayList<>();
			for (ClaimedJob job : jobs) {
				boolean ours = !this.leasesLost.contains(job.id());
				answers.add(ours);
				if (ours) {
					this.completed.add(job.id());
				}
			}
			ClaimResult claimed = null;
			if (claim != null) {
				claimed = await(claim(bucket, claim.topic(), claim.slots(), claim.leaseMillis(), claim.token(),
						claim.maxAttempts(), claim.maxScore()), "claim");
			}
			return CompletableFuture.completedFuture(new CompletionReply(answers, claimed));
		}

		@Override
		public Optional<ScheduleOutcome> retry(ClaimedJob job, long backoffMillis, String reason) {
			this.calls.add("retry " + job.id());
			return Optional.of(new ScheduleOutcome("ok", Long.toString(now() + backoffMillis), false));
		}

		@Override
		public long bury(ClaimedJob job, String reason) {
			this.calls.add("bury " + job.id());
			return now();
		}

		@Override
		public synchronized CompletionStage<List<Boolean>> extend(int bucket, long leaseMillis, List<ClaimedJob> jobs) {
			this.renewals.incrementAndGet();
			List<Boolean> answers = new ArrayList<>();
			for (ClaimedJob job : jobs) {
				boolean ours = !this.leasesLost.contains(job.id());
				answers.add(ours);
				if (!ours) {
					this.renewalsRefused.add(job.id());
				}
			}
			return CompletableFuture.completedFuture(answers);
		}

		@Override
		public synchronized long releaseClaim(int bucket, String topic, String token) {
			this.calls.add("releaseClaim " + bucket + " " + token);
			List<ClaimedJob> held = this.claimedUnder.getOrDefault(token, List.of());
			held.forEach((job) -> ready(bucket, job.id(), job.dueAt()));
			this.claimedUnder.remove(token);
			return held.size();
		}

		@Override
		public void releaseAndSignal(String topic, int bucket, List<ClaimedJob> jobs, boolean notStarted) {
			this.calls.add("release " + bucket + " " + jobs.stream().map(ClaimedJob::id).toList()
					+ (notStarted ? " refunded" : " counted"));
		}

		@Override
		public SignalList signals(String topic) {
			return new SignalList() {

				@Override
				public void push(int bucket) {
				}

				@Override
				public boolean anyReady() {
					synchronized (FakeRedis.this) {
						return FakeRedis.this.ready.values().stream().anyMatch((jobs) -> !jobs.isEmpty());
					}
				}

				@Override
				public @Nullable String pop() {
					synchronized (FakeRedis.this) {
						return FakeRedis.this.ready.entrySet()
							.stream()
							.filter((entry) -> !entry.getValue().isEmpty())
							.map((entry) -> Integer.toString(entry.getKey()))
							.findFirst()
							.orElse(null);
					}
				}

				@Override
				public @Nullable String blockingPop(Duration wait) {
					return pop();
				}

				@Override
				public void close() {
				}

			};
		}

		@Override
		public StartLimiter startLimiter(String topic, RateLimit limit) {
			throw new UnsupportedOperationException("no rate limit in these tests");
		}

		private long now() {
			return TopicConsumerTests.this.nanos() / 1_000_000;
		}

	}

}
