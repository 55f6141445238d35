package io.redeq.internal.migrator;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.IntConsumer;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import io.redeq.RedeqOptions;
import io.redeq.RedeqUnavailableException;
import io.redeq.internal.JobEvents;
import io.redeq.internal.consumer.HandOffs;
import io.redeq.internal.consumer.LocalWorkSignals;
import io.redeq.internal.redis.BucketLayout;
import io.redeq.internal.redis.BucketPeek;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.LayoutChangedException;
import io.redeq.internal.redis.MigrateResult;
import io.redeq.internal.redis.SlotOffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

// Over 400 lines: its fake Redis (locks, the sweep's look, migrate rounds over each
// bucket's due times) and wake channel are a third of it, kept here since no other test
// uses them.
/**
 * The migrator's loop, one pass at a time, on a fake Redis and a fake clock: it takes its
 * fair share of the buckets from its own offset and gives back what is beyond it, loses a
 * bucket whose lock another instance took mid-pass, migrates a job at its due time and
 * not before, at once when a new earliest job wakes its bucket (also while the bucket's
 * call is in flight), again at once after a full batch, backs off a second after a pass
 * Redis failed, plans a bucket's next call at a tick a cron refill moved earlier, and on
 * close releases its locks and leaves.
 */
class MigratorTests {

	private static final long MILLI = Duration.ofMillis(1).toNanos();

	private static final long SECOND = Duration.ofSeconds(1).toNanos();

	/** Tries buckets from bucket 0: its id's hash is a multiple of 4. */
	private static final String INSTANCE = "node-c";

	/** Four buckets; ownership check every 3s, sweep every second, batches of 3. */
	private static final RedeqOptions OPTIONS = RedeqOptions.builder()
		.buckets(4)
		.lockTtl(Duration.ofSeconds(9))
		.sweepInterval(Duration.ofSeconds(1))
		.batchSize(3)
		.build();

	private final AtomicLong clock = new AtomicLong(1_000 * SECOND);

	private final FakeRedis redis = new FakeRedis();

	private final FakeWakeChannel wakeChannel = new FakeWakeChannel();

	/** Refills asked for, as "bucket jobKeys"; each answers {@link #refilledTo}. */
	private final List<String> refills = new ArrayList<>();

	private long refilledTo = -1;

	/** The bucket layout the fake Redis records. */
	private final AtomicReference<BucketLayout> layout = new AtomicReference<>(
			new BucketLayout(OPTIONS.buckets(), 0, 0));

	/** What the migrator told the consumers: hold or go on. */
	private final List<Boolean> holds = new ArrayList<>();

	private final Migrator migrator = new Migrator(this.redis, this.wakeChannel::heard, OPTIONS, INSTANCE,
			JobEvents.NONE, LocalWorkSignals.NONE, new HandOffs(true), this::refill,
			new InstanceDescriptions(INSTANCE, Instant.EPOCH), List::of, this.clock::get, this.layout::get,
			this.holds::add);

	@AfterEach
	void close() {
		this.migrator.close();
	}

	@Test
	void takesItsFairShareFromItsOwnOffsetSkippingBucketsAnotherInstanceHolds() {
		this.redis.live = 2;
		this.redis.heldByOthers.add(0);

		this.migrator.pass();

		assertThat(this.migrator.ownedBuckets()).containsExactly(1, 2);
		assertThat(this.redis.calls).containsSubsequence("heartbeat", "lock 0", "lock 1", "lock 2", "peek [1, 2]")
			.doesNotContain("lock 3");
		assertThat(this.wakeChannel.subscribed).isTrue();
	}

	@Test
	void givesBackWhatIsBeyondItsShareOnceMoreInstancesRun() {
		this.migrator.pass();
		assertThat(this.migrator.ownedBuckets()).containsExactly(0, 1, 2, 3);

		this.redis.live = 4;
		this.clock.addAndGet(3 * SECOND);
		this.migrator.pass();

		assertThat(this.migrator.ownedBuckets()).containsExactly(0);
		assertThat(this.redis.calls).contains("unlock 3", "unlock 2", "unlock 1").doesNotContain("unlock 0");
	}

	@Test
	void holdsWhileTheRecordedLayoutIsNotItsOwnAndGoesOnWhenItIs() {
		this.migrator.pass();
		assertThat(this.migrator.ownedBuckets()).containsExactly(0, 1, 2, 3);

		this.layout.set(new BucketLayout(OPTIONS.buckets(), 2 * OPTIONS.buckets(), 1));
		this.redis.due(1, now());
		this.clock.addAndGet(3 * SECOND);
		this.redis.calls.clear();
		this.migrator.pass();
		assertThat(this.migrator.ownedBuckets()).as("a change of the count has begun").isEmpty();
		assertThat(this.holds).containsExactly(true);
		assertThat(this.redis.calls).contains("unlock 0", "unlock 3")
			.noneMatch((call) -> call.startsWith("migrateDue"));

		this.clock.addAndGet(3 * SECOND);
		this.migrator.pass();
		assertThat(this.holds).as("told again at each check, so that the engine follows the change once it is over")
			.containsExactly(true, true);
		assertThat(this.migrator.ownedBuckets()).isEmpty();

		this.layout.set(new BucketLayout(OPTIONS.buckets(), 0, 1));
		this.clock.addAndGet(3 * SECOND);
		this.migrator.pass();
		assertThat(this.holds).as("told once that it goes on").containsExactly(true, true, false);
		assertThat(this.migrator.ownedBuckets()).containsExactly(0, 1, 2, 3);
	}

	@Test
	void losesABucketWhoseLockAnotherInstanceTookMidPass() {
		this.migrator.pass();
		this.clock.addAndGet(SECOND);
		this.redis.due(1, now() + 500);
		this.redis.due(2, now() + 500);
		this.redis.lost.add(1);

		this.migrator.pass();

		assertThat(this.migrator.ownedBuckets()).as("the sweep found the lock gone").containsExactly(0, 2, 3);
		this.clock.addAndGet(500 * MILLI);
		this.migrator.pass();
		assertThat(this.redis.calls).contains("migrateDue [2]").doesNotContain("migrateDue [1]");
	}

	@Test
	void losesABucketWhoseMigrateFoundTheLockGone() {
		this.migrator.pass();
		this.clock.addAndGet(SECOND);
		this.redis.due(1, now() + 500);
		this.migrator.pass();
		this.redis.lost.add(1);

		this.clock.addAndGet(500 * MILLI);
		this.migrator.pass();

		assertThat(this.redis.calls).contains("migrateDue [1]");
		assertThat(this.migrator.ownedBuckets()).containsExactly(0, 2, 3);
	}

	@Test
	void migratesAJobAtItsDueTimeAndNotBefore() {
		this.migrator.pass();
		this.clock.addAndGet(SECOND);
		this.redis.due(2, now() + 300);
		this.migrator.pass();
		this.redis.calls.clear();

		this.clock.addAndGet(299 * MILLI);
		this.migrator.pass();
		assertThat(this.redis.calls).isEmpty();

		this.clock.addAndGet(MILLI);
		this.migrator.pass();
		assertThat(this.redis.calls).containsExactly("migrateDue [2]", "signal mail/2");
	}

	@Test
	void sweepsABucketWhoseLeaseExpiredWithAFullMigrate() {
		this.migrator.pass();
		this.redis.leaseExpired.add(3);

		this.clock.addAndGet(SECOND);
		this.migrator.pass();

		assertThat(this.redis.calls).contains("migrate 3 sweep");
	}

	@Test
	void aNewEarliestJobWakesItsBucketAtOnceAndAnotherInstancesBucketThroughTheChannel() {
		this.redis.live = 2;
		this.migrator.pass();
		assertThat(this.migrator.ownedBuckets()).containsExactly(0, 1);
		this.redis.due(1, now());
		this.redis.calls.clear();

		this.migrator.earlierJob(1, now());
		this.migrator.earlierJob(3, now() + 50);
		this.migrator.pass();

		assertThat(this.redis.calls).containsExactly("migrateDue [1]", "signal mail/1");
		assertThat(this.wakeChannel.published).containsExactly("3:" + (now() + 50));
	}

	@Test
	void aWakeUpHeardOnTheChannelMigratesTheBucket() {
		this.migrator.pass();
		this.redis.due(2, now());
		this.redis.calls.clear();

		this.wakeChannel.wake.accept(2);
		this.migrator.pass();

		assertThat(this.redis.calls).containsExactly("migrateDue [2]", "signal mail/2");
	}

	@Test
	void aWakeUpWhileTheBucketsCallIsInFlightMigratesItAgainAfterTheReply() {
		this.migrator.pass();
		this.redis.due(2, now());
		this.migrator.earlierJob(2, now());
		// Scheduled while the call runs: the reply, written before it, does not show it.
		this.redis.duringCall = () -> this.migrator.earlierJob(2, now());
		this.migrator.pass();
		this.redis.duringCall = null;
		this.redis.due(2, now());
		this.redis.calls.clear();

		this.migrator.pass();

		assertThat(this.redis.calls).containsExactly("migrateDue [2]", "signal mail/2");
	}

	@Test
	void aFullBatchIsMigratedAgainAtOnce() {
		this.migrator.pass();
		for (int i = 0; i < 5; i++) {
			this.redis.due(0, now() - i);
		}
		this.migrator.earlierJob(0, now());
		this.migrator.pass();
		assertThat(this.redis.moved).containsExactly(3);

		this.migrator.pass();

		assertThat(this.redis.moved).containsExactly(3, 2);
	}

	@Test
	void aFailedPassIsRetriedASecondLaterWithoutCallingRedisMeanwhile() {
		this.redis.failure = new RedeqUnavailableException("Redis did not answer within 1s", new TimeoutException());
		this.migrator.pass();
		assertThat(this.redis.calls).containsExactly("heartbeat");
		this.redis.failure = null;

		this.clock.addAndGet(999 * MILLI);
		this.migrator.pass();
		assertThat(this.redis.calls).containsExactly("heartbeat");

		this.clock.addAndGet(MILLI);
		this.migrator.pass();
		assertThat(this.migrator.ownedBuckets()).containsExactly(0, 1, 2, 3);
	}

	@Test
	void aFailedMigrateBacksOffEveryBucketAndMigratesThemASecondLater() {
		this.migrator.pass();
		this.redis.due(1, now());
		this.migrator.earlierJob(1, now());
		this.redis.failure = new RedeqUnavailableException("Redis did not answer within 1s", new TimeoutException());
		this.migrator.pass();
		this.redis.failure = null;
		this.redis.calls.clear();

		this.clock.addAndGet(999 * MILLI);
		this.migrator.pass();
		assertThat(this.redis.calls).isEmpty();

		this.clock.addAndGet(MILLI);
		this.migrator.pass();
		assertThat(this.redis.calls).as("the sweep found it due").contains("migrate 1 sweep", "signal mail/1");
	}

	@Test
	void aFrozenBucketsRefusalHoldsQuietlyAndBacksOffLikeAFailure() {
		ListAppender<ILoggingEvent> logs = new ListAppender<>();
		logs.start();
		Logger logger = (Logger) LoggerFactory.getLogger(Migrator.class);
		logger.addAppender(logs);
		try {
			this.migrator.pass();
			LayoutChangedException refusal = new LayoutChangedException(
					"ERR redeq-layout: bucket {p:1:0}:count is frozen while the bucket count of its prefix changes to 8",
					new IllegalStateException("reply"));
			for (int i = 0; i < 3; i++) {
				this.redis.due(1, now());
				this.migrator.earlierJob(1, now());
				this.redis.failure = refusal;
				this.migrator.pass();
				this.redis.failure = null;
				this.redis.calls.clear();
				this.clock.addAndGet(999 * MILLI);
				this.migrator.pass();
				assertThat(this.redis.calls).as("backed off").isEmpty();
				this.clock.addAndGet(MILLI);
			}
			this.migrator.pass();
			assertThat(this.redis.calls).as("goes on once the bucket answers").contains("migrate 1 sweep");
			synchronized (logs.list) {
				assertThat(logs.list).filteredOn((event) -> event.getLevel().isGreaterOrEqual(Level.WARN)).isEmpty();
				assertThat(logs.list).filteredOn((event) -> event.getFormattedMessage().contains("changes to 8"))
					.as("said once")
					.hasSize(1)
					.allSatisfy((event) -> assertThat(event.getLevel()).isEqualTo(Level.INFO));
			}
		}
		finally {
			logger.detachAppender(logs);
		}
	}

	@Test
	void aCronRefillThatMovesATickEarlierPlansTheBucketsNextCallThen() {
		this.migrator.pass();
		this.redis.due(2, now());
		this.redis.due(2, now() + 5_000);
		this.redis.refill.add(2);
		this.refilledTo = now() + 200;
		this.migrator.earlierJob(2, now());
		this.migrator.pass();
		assertThat(this.refills).containsExactly("2 [recurring:2]");
		this.redis.calls.clear();

		this.clock.addAndGet(199 * MILLI);
		this.migrator.pass();
		assertThat(this.redis.calls).isEmpty();
		this.clock.addAndGet(MILLI);
		this.migrator.pass();
		assertThat(this.redis.calls).containsExactly("migrateDue [2]");
	}

	@Test
	void closeReleasesEveryLockAndLeaves() {
		this.redis.live = 2;
		this.migrator.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.migrator.ownedBuckets().length == 2);

		this.migrator.close();

		assertThat(this.redis.calls).contains("unlock 0", "unlock 1", "leave", "forget");
		assertThat(this.wakeChannel.closed).isTrue();
	}

	@Test
	void aMigratorNeverStartedTouchesNothingOnClose() {
		this.migrator.close();

		assertThat(this.redis.calls).isEmpty();
	}

	private long now() {
		return this.clock.get() / MILLI;
	}

	private long refill(int bucket, List<String> jobKeys, long now) {
		this.refills.add(bucket + " " + jobKeys);
		return this.refilledTo;
	}

	/**
	 * Redis as the migrator's scripts see it: one topic, the due times of each bucket's
	 * delayed jobs, its time that of the test's clock.
	 */
	private final class FakeRedis implements MigrationScripts {

		final List<String> calls = new CopyOnWriteArrayList<>();

		/** How many jobs each migrate moved, in order. */
		final List<Integer> moved = new ArrayList<>();

		final Map<Integer, TreeSet<Long>> delayed = new TreeMap<>();

		final Set<Integer> heldByOthers = new HashSet<>();

		/** Buckets whose lock another instance took. */
		final Set<Integer> lost = new HashSet<>();

		final Set<Integer> leaseExpired = new HashSet<>();

		/** Buckets whose migrate finds a recurring job whose plan runs short. */
		final Set<Integer> refill = new HashSet<>();

		volatile long live = 1;

		volatile @Nullable RuntimeException failure;

		@Nullable Runnable duringCall;

		void due(int bucket, long dueAt) {
			this.delayed.computeIfAbsent(bucket, (b) -> new TreeSet<>()).add(dueAt);
		}

		@Override
		public long heartbeat(String instanceId, long ttlMillis, boolean leaving) {
			this.calls.add(leaving ? "leave" : "heartbeat");
			failIfAsked();
			return this.live;
		}

		@Override
		public boolean tryLock(int bucket, String owner, long ttlMillis) {
			this.calls.add("lock " + bucket);
			return !this.heldByOthers.contains(bucket);
		}

		@Override
		public boolean unlock(int bucket, String owner) {
			this.calls.add("unlock " + bucket);
			return true;
		}

		@Override
		public CompletionStage<String> describeInstance(String instanceId, String description, long ttlMillis) {
			return CompletableFuture.completedFuture("OK");
		}

		@Override
		public void forgetInstance(String instanceId) {
			this.calls.add("forget");
		}

		@Override
		public List<BucketPeek> peek(int[] buckets, String owner, long lockTtlMillis) {
			this.calls.add("peek " + Arrays.toString(buckets));
			failIfAsked();
			List<BucketPeek> peeks = new ArrayList<>();
			for (int bucket : buckets) {
				TreeSet<Long> due = this.delayed.getOrDefault(bucket, new TreeSet<>());
				peeks.add(new BucketPeek(bucket, now(), !this.lost.contains(bucket), due.isEmpty() ? -1 : due.first(),
						this.leaseExpired.contains(bucket) ? now() : -1, -1));
			}
			return peeks;
		}

		@Override
		public MigrateResult migrate(int bucket, int batchSize, boolean sweep, String lockOwner, long lockTtlMillis,
				long deadRetentionMillis) {
			this.calls.add("migrate " + bucket + (sweep ? " sweep" : ""));
			failIfAsked();
			this.leaseExpired.remove(bucket);
			return migrated(bucket, batchSize);
		}

		@Override
		public void migrateDue(int[] buckets, int batchSize, List<List<SlotOffer>> offersByBucket,
				List<List<ClaimedJob>> completionsByBucket, BiConsumer<Integer, MigrateResult> each) {
			this.calls.add("migrateDue " + Arrays.toString(buckets));
			failIfAsked();
			for (int bucket : buckets) {
				MigrateResult result = migrated(bucket, batchSize);
				if (this.duringCall != null) {
					this.duringCall.run();
				}
				each.accept(bucket, result);
			}
		}

		private MigrateResult migrated(int bucket, int batchSize) {
			TreeSet<Long> due = this.delayed.getOrDefault(bucket, new TreeSet<>());
			int moved = 0;
			while (moved < batchSize && !due.isEmpty() && due.first() <= now()) {
				due.pollFirst();
				moved++;
			}
			this.moved.add(moved);
			return new MigrateResult(now(), 0, due.isEmpty() ? -1 : due.first(), -1, !this.lost.contains(bucket), moved,
					0, this.refill.contains(bucket) ? List.of("recurring:" + bucket) : List.of(),
					(moved > 0) ? Map.of("mail", moved) : Map.of(), List.of(), List.of());
		}

		@Override
		public CompletionStage<Long> signal(String topic, int bucket) {
			this.calls.add("signal " + topic + "/" + bucket);
			return CompletableFuture.completedFuture(1L);
		}

		private void failIfAsked() {
			RuntimeException failure = this.failure;
			if (failure != null) {
				throw failure;
			}
		}

	}

	/** The wake channel: what was published, and where a wake-up heard goes. */
	private static final class FakeWakeChannel implements WakeHints {

		final List<String> published = new ArrayList<>();

		volatile boolean subscribed;

		volatile boolean closed;

		IntConsumer wake = (bucket) -> {
		};

		WakeHints heard(IntConsumer wake) {
			this.wake = wake;
			return this;
		}

		@Override
		public void publish(int bucket, long dueAtMillis) {
			this.published.add(bucket + ":" + dueAtMillis);
		}

		@Override
		public void subscribe() {
			this.subscribed = true;
		}

		@Override
		public void close() {
			this.closed = true;
		}

	}

}
