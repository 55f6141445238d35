package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.ClaimedJob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The worker slots without Redis: the prefetch slots open once handlers prove quick, as
 * many as the handlers finish in about 10 ms, and close while they are slow, prefetched
 * jobs wait for one of the concurrency's turns, a job handed over ahead of its due time
 * runs once that time passed, and close takes the waiting ones back before any handler
 * runs them.
 */
class WorkersTests {

	/** The workers' clock: a handler "takes" a duration by moving it on. */
	private final AtomicLong nanos = new AtomicLong();

	private final Workers workers = new Workers("mail", 1, 2, this.nanos::get);

	/** Jobs whose slot came back, counted after {@link Workers#finished}. */
	private final AtomicInteger ended = new AtomicInteger();

	@AfterEach
	void shutdown() {
		this.workers.shutdown();
	}

	@Test
	void thePrefetchOpensOnceHandlersProveQuickAndClosesWhileTheyAreSlow() {
		assertThat(freeSlots()).as("before any handler ran: only the concurrency").isEqualTo(1);

		runToEnd("quick-1", Duration.ZERO);
		assertThat(freeSlots()).as("handlers quick: concurrency + prefetch").isEqualTo(3);

		runToEnd("slow-1", Workers.QUICK_HANDLER.multipliedBy(8));
		assertThat(freeSlots()).as("handlers slow: the prefetch closed again").isEqualTo(1);
	}

	@Test
	void jobsMayWaitForTheirDueTimeOnlyInTheFreeHalfOfAnOpenPrefetch() {
		Workers wide = new Workers("mail", 2, 40, this.nanos::get);
		try {
			assertThat(wide.roomForEarlyJobs(2)).as("before any handler ran: only the concurrency").isFalse();
			runToEnd(wide, "quick", Duration.ZERO);
			assertThat(wide.roomForEarlyJobs(42)).as("all 42 open slots free").isTrue();
			assertThat(wide.roomForEarlyJobs(21)).as("half of them").isTrue();
			assertThat(wide.roomForEarlyJobs(20)).as("less than half").isFalse();
			runToEnd(wide, "slow", Workers.QUICK_HANDLER.multipliedBy(8));
			assertThat(wide.roomForEarlyJobs(2)).as("handlers slow: the prefetch closed").isFalse();
		}
		finally {
			wide.shutdown();
		}
	}

	@Test
	void theOpenPrefetchHoldsWhatTheHandlersFinishInAboutTenMillisecondsAtLeastTheConcurrency() {
		Workers wide = new Workers("mail", 2, 40, this.nanos::get);
		try {
			assertThat(freeSlotsAfterOneRun(wide, Duration.ofMillis(1))).as("1 ms handlers: 2 turns + 2 x 10 ms / 1 ms")
				.isEqualTo(22);
			assertThat(freeSlotsAfterOneRun(wide, Duration.ofMillis(9)))
				.as("average 3 ms (1 ms + (9 - 1) / 4): 2 turns + 6")
				.isEqualTo(8);
			assertThat(freeSlotsAfterOneRun(wide, Duration.ofMillis(45)))
				.as("average 13.5 ms: 2 turns + at least the concurrency")
				.isEqualTo(4);
			assertThat(freeSlotsAfterOneRun(wide, Duration.ZERO))
				.as("quicker again: 2 turns + 2 x 10 ms / 10.1 ms, at least 2")
				.isEqualTo(4);
			for (int i = 0; i < 12; i++) {
				runToEnd(wide, "quick-" + i, Duration.ZERO);
			}
			assertThat(freeSlots(wide)).as("handlers about instant: 2 turns + the whole prefetch").isEqualTo(42);
		}
		finally {
			wide.shutdown();
		}
	}

	@Test
	void aPrefetchedJobWaitsForATurnAndCloseTakesItBackBeforeItRuns() throws Exception {
		runToEnd("quick-1", Duration.ZERO);
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger ranWaiting = new AtomicInteger();
		assertThat(this.workers.takeFreeSlotsNow()).isEqualTo(3);
		this.workers.start(job("running"), handler((job) -> awaitRelease(release)));
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.workers.running().stream().anyMatch(RunningJob::hasBegun));
		this.workers.start(job("waiting"), handler((job) -> ranWaiting.incrementAndGet()));

		List<ClaimedJob> takenBack = this.workers.takeBackWaiting();

		assertThat(takenBack).extracting(ClaimedJob::id).containsExactly("waiting");
		release.countDown();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.ended.get() == 2);
		AtomicInteger ranNext = new AtomicInteger();
		this.workers.start(job("next"), handler((job) -> ranNext.incrementAndGet()));
		await().atMost(Duration.ofSeconds(5)).until(() -> ranNext.get() == 1);
		assertThat(ranWaiting).as("a job taken back never runs").hasValue(0);
	}

	@Test
	void aJobHandedOverAheadOfItsDueTimeRunsOnlyOnceThatTimePassed() {
		ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
		try {
			assertThat(this.workers.takeFreeSlotsNow()).isEqualTo(1);
			AtomicLong ranAt = new AtomicLong();
			long startedAt = System.nanoTime();
			long inNanos = Duration.ofMillis(200).toNanos();

			boolean started = this.workers.start(job("ahead"), handler((job) -> ranAt.set(System.nanoTime())), inNanos,
					timers, (job) -> {
						throw new AssertionError("refused " + job.id());
					});

			assertThat(started).isTrue();
			assertThat(this.workers.running()).as("holds its slot while it waits").hasSize(1);
			await().atMost(Duration.ofSeconds(5)).until(() -> this.ended.get() == 1);
			assertThat(ranAt.get() - startedAt).isGreaterThanOrEqualTo(inNanos);
		}
		finally {
			timers.shutdownNow();
		}
	}

	@Test
	void closeTakesBackAJobWaitingForItsDueTimeAndItNeverRuns() throws Exception {
		ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
		try {
			assertThat(this.workers.takeFreeSlotsNow()).isEqualTo(1);
			AtomicInteger ran = new AtomicInteger();
			List<ClaimedJob> refused = new CopyOnWriteArrayList<>();
			this.workers.start(job("ahead"), handler((job) -> ran.incrementAndGet()), Duration.ofMillis(300).toNanos(),
					timers, refused::add);

			List<ClaimedJob> takenBack = this.workers.takeBackWaiting();

			assertThat(takenBack).extracting(ClaimedJob::id).containsExactly("ahead");
			assertThat(this.workers.running()).isEmpty();
			assertThat(freeSlots()).as("its slot came back").isEqualTo(1);
			timers.shutdown();
			assertThat(timers.awaitTermination(5, TimeUnit.SECONDS)).as("the planned start came and went").isTrue();
			assertThat(ran).as("a job taken back never runs").hasValue(0);
			assertThat(refused).as("nor goes back twice").isEmpty();
		}
		finally {
			timers.shutdownNow();
		}
	}

	@Test
	void aNegativePrefetchIsRefusedWithItsValue() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Workers("mail", 1, -1))
			.withMessageContaining("prefetch")
			.withMessageContaining("-1");
	}

	private int freeSlots() {
		return freeSlots(this.workers);
	}

	private static int freeSlots(Workers workers) {
		int free = workers.takeFreeSlotsNow();
		workers.giveBackSlots(free);
		return free;
	}

	private int freeSlotsAfterOneRun(Workers workers, Duration took) {
		runToEnd(workers, "run", took);
		return freeSlots(workers);
	}

	/**
	 * Starts one job whose handler takes {@code took}, and waits until its slot is back.
	 */
	private void runToEnd(String id, Duration took) {
		runToEnd(this.workers, id, took);
	}

	private void runToEnd(Workers workers, String id, Duration took) {
		int free = workers.takeFreeSlotsNow();
		workers.giveBackSlots(free - 1);
		int before = this.ended.get();
		workers.start(job(id), handler(workers, (job) -> this.nanos.addAndGet(took.toNanos())));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.ended.get() > before);
	}

	/** What HandlerInvocation does around a handler: begin, run, give the slot back. */
	private Consumer<RunningJob> handler(Consumer<ClaimedJob> body) {
		return handler(this.workers, body);
	}

	private Consumer<RunningJob> handler(Workers workers, Consumer<ClaimedJob> body) {
		return (runningJob) -> {
			if (runningJob.begin(Thread.currentThread())) {
				body.accept(runningJob.job);
				runningJob.end();
			}
			workers.finished(runningJob);
			this.ended.incrementAndGet();
		};
	}

	private static ClaimedJob job(String id) {
		return new ClaimedJob(0, "mail:" + id, "mail", id, 1, 1_700_000_000_000L, 1_700_000_000_000L, "\"x\"",
				"token-" + id);
	}

	private static void awaitRelease(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
