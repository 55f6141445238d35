package io.redeq.internal.migrator;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link BucketOwnership} on a fake clock: taking and losing buckets, the deadlines of
 * the ownership check and of the sweep that renews the locks, which wake-up comes first,
 * calls planned ahead of a due time for an early hand-off, which the sweep's plans leave
 * standing, wake-ups while a call is in flight, and wake-ups that arrive around a wait.
 */
class BucketOwnershipTests {

	private static final long SECOND = Duration.ofSeconds(1).toNanos();

	private static final long MILLI = Duration.ofMillis(1).toNanos();

	private final AtomicLong clock = new AtomicLong(1_000 * SECOND);

	/** 8 buckets, tried from bucket 5; ownership check every 3s, sweep every second. */
	private final BucketOwnership ownership = new BucketOwnership(8, 5, Duration.ofSeconds(9), Duration.ofSeconds(1),
			this.clock::get);

	private final AtomicBoolean running = new AtomicBoolean(true);

	private @Nullable Thread waiter;

	private @Nullable BucketOwnership waitingOn;

	@AfterEach
	void stopWaiter() throws InterruptedException {
		Thread waiter = this.waiter;
		BucketOwnership plan = this.waitingOn;
		if (waiter != null && plan != null) {
			this.running.set(false);
			plan.wakeAll();
			waiter.join(5000);
		}
	}

	@Test
	void aNewPlanOwnsNothingAndChecksAndSweepsAtOnce() {
		assertThat(this.ownership.owned()).isEmpty();
		assertThat(this.ownership.ownershipCheckDue()).isTrue();
		assertThat(this.ownership.sweepDue()).isTrue();
		assertThat(this.ownership.nanosToNextWakeUp()).isLessThanOrEqualTo(0);
	}

	@Test
	void eachInstanceOwnsItsShareRoundedUp() {
		BucketOwnership sixteen = new BucketOwnership(16, 0, Duration.ofSeconds(10), Duration.ofSeconds(1),
				this.clock::get);

		assertThat(sixteen.fairShare(0)).as("no heartbeat counted yet").isEqualTo(16);
		assertThat(sixteen.fairShare(1)).isEqualTo(16);
		assertThat(sixteen.fairShare(2)).isEqualTo(8);
		assertThat(sixteen.fairShare(3)).isEqualTo(6);
		assertThat(sixteen.fairShare(5)).isEqualTo(4);
		assertThat(sixteen.fairShare(100)).isEqualTo(1);
	}

	@Test
	void bucketsAreTriedFromTheInstancesOffsetSkippingOwnedOnes() {
		this.ownership.take(6);

		assertThat(this.ownership.candidates()).containsExactly(5, 7, 0, 1, 2, 3, 4);
	}

	@Test
	void theHighestBucketsBeyondTheShareAreGivenBack() {
		for (int bucket : new int[] { 1, 4, 7, 2 }) {
			this.ownership.take(bucket);
		}

		assertThat(this.ownership.owned()).containsExactly(1, 2, 4, 7);
		assertThat(this.ownership.beyond(2)).containsExactly(7, 4);
		assertThat(this.ownership.beyond(4)).isEmpty();
		assertThat(this.ownership.beyond(8)).isEmpty();
	}

	@Test
	void aTakenBucketHasNothingPlannedButGetsASweepAtOnce() {
		this.ownership.swept();
		assertThat(this.ownership.sweepDue()).isFalse();

		this.ownership.take(3);

		assertThat(this.ownership.owned()).containsExactly(3);
		assertThat(this.ownership.sweepDue()).isTrue();
		assertThat(this.ownership.isDue(3)).isFalse();
	}

	@Test
	void aLostBucketIsNeitherDueNorWokenNorWaitedFor() {
		ownWithCheckAndSweepDone(3);
		this.ownership.wakeIn(3, 50);

		this.ownership.forget(3);

		assertThat(this.ownership.owned()).isEmpty();
		this.clock.addAndGet(100 * MILLI);
		assertThat(this.ownership.isDue(3)).isFalse();
		assertThat(this.ownership.wakeNow(3)).as("woken although not owned").isFalse();
		assertThat(this.ownership.isDue(3)).isFalse();
		assertThat(this.ownership.nanosToNextWakeUp()).isEqualTo(SECOND - 100 * MILLI);
	}

	@Test
	void aCallPlannedAheadOfTheDueTimeRemembersThatTimeUntilAnotherPlanReplacesIt() {
		ownWithCheckAndSweepDone(3);

		this.ownership.wakeAhead(3, 50 * MILLI, 4 * MILLI);

		long dueTime = this.clock.get() + 50 * MILLI;
		assertThat(this.ownership.earlyFor(3)).isEqualTo(dueTime);
		this.clock.addAndGet(45 * MILLI);
		assertThat(this.ownership.isDue(3)).as("not yet 4 ms before the due time").isFalse();
		this.clock.addAndGet(MILLI);
		assertThat(this.ownership.isDue(3)).as("4 ms before the due time").isTrue();

		this.ownership.planWake(3, dueTime);

		assertThat(this.ownership.earlyFor(3)).isEqualTo(BucketOwnership.NEVER);
		assertThat(this.ownership.isDue(3)).as("waits for the due time now").isFalse();
		this.clock.addAndGet(4 * MILLI);
		assertThat(this.ownership.isDue(3)).isTrue();
	}

	@Test
	void aCallDueWithinTheLeadIsPlannedAtTheDueTimeNotAhead() {
		this.ownership.take(3);

		this.ownership.wakeAhead(3, 3 * MILLI, 4 * MILLI);

		assertThat(this.ownership.earlyFor(3)).isEqualTo(BucketOwnership.NEVER);
		assertThat(this.ownership.isDue(3)).isFalse();
		this.clock.addAndGet(3 * MILLI);
		assertThat(this.ownership.isDue(3)).isTrue();
	}

	@Test
	void theSweepLeavesACallPlannedAheadOfTheDueTimeAsItIs() {
		ownWithCheckAndSweepDone(3);
		this.ownership.wakeAhead(3, 50 * MILLI, 4 * MILLI);
		long dueTime = this.clock.get() + 50 * MILLI;

		this.clock.addAndGet(10 * MILLI);
		this.ownership.sweptHead(3, 40 * MILLI, 4 * MILLI);
		this.ownership.sweptHead(3, 70 * MILLI, 4 * MILLI);

		assertThat(this.ownership.earlyFor(3)).isEqualTo(dueTime);
		this.clock.addAndGet(35 * MILLI);
		assertThat(this.ownership.isDue(3)).as("not yet 4 ms before the due time").isFalse();
		this.clock.addAndGet(MILLI);
		assertThat(this.ownership.isDue(3)).as("4 ms before the due time, as planned before the sweep").isTrue();
	}

	@Test
	void theSweepBringsForwardACallPlannedLaterOrNotAtAll() {
		ownWithCheckAndSweepDone(3);
		ownWithCheckAndSweepDone(4);
		this.ownership.wakeIn(3, 60_000);
		this.ownership.idle(4);

		this.ownership.sweptHead(3, 50 * MILLI, 4 * MILLI);
		this.ownership.sweptHead(4, 10 * MILLI, 0);

		assertThat(this.ownership.earlyFor(3)).as("ahead, for an early hand-off")
			.isEqualTo(this.clock.get() + 50 * MILLI);
		assertThat(this.ownership.earlyFor(4)).as("no consumer here: at the due time").isEqualTo(BucketOwnership.NEVER);
		this.clock.addAndGet(10 * MILLI);
		assertThat(this.ownership.isDue(3)).isFalse();
		assertThat(this.ownership.isDue(4)).isTrue();
		this.clock.addAndGet(36 * MILLI);
		assertThat(this.ownership.isDue(3)).isTrue();
	}

	@Test
	void withoutAWakeUpWhileInFlightTheReplysPlanStands() {
		ownWithCheckAndSweepDone(3);
		this.ownership.sent(3);

		this.ownership.wakeIn(3, 60_000);
		this.ownership.answered(3);

		assertThat(this.ownership.isDue(3)).isFalse();
		this.clock.addAndGet(60 * SECOND);
		assertThat(this.ownership.isDue(3)).isTrue();
	}

	@Test
	void aWakeUpWhileACallIsInFlightOutlivesThePlanItsReplyMakes() {
		ownWithCheckAndSweepDone(3);
		this.ownership.sent(3);

		assertThat(this.ownership.wakeNow(3)).isTrue();
		// The reply was written before the job that woke the bucket was scheduled.
		this.ownership.wakeIn(3, 60_000);
		this.ownership.answered(3);

		assertThat(this.ownership.isDue(3)).isTrue();
		assertThat(this.ownership.earlyFor(3)).isEqualTo(BucketOwnership.NEVER);
	}

	/**
	 * Takes a bucket with the ownership check and the sweep just done, so neither is due.
	 */
	private void ownWithCheckAndSweepDone(int bucket) {
		this.ownership.ownershipChecked();
		this.ownership.swept();
		this.ownership.take(bucket);
		this.ownership.swept();
	}

	@Test
	void aBucketNotOwnedGetsNoPlan() {
		this.ownership.wakeIn(2, 0);

		assertThat(this.ownership.isDue(2)).isFalse();
		this.ownership.take(2);
		assertThat(this.ownership.isDue(2)).as("a plan made before the bucket was taken").isFalse();
	}

	@Test
	void heartbeatAndShareAreCheckedEveryThirdOfTheLockTtl() {
		this.ownership.ownershipChecked();

		this.clock.addAndGet(3 * SECOND - 1);
		assertThat(this.ownership.ownershipCheckDue()).isFalse();
		this.clock.addAndGet(1);
		assertThat(this.ownership.ownershipCheckDue()).isTrue();
	}

	@Test
	void theSweepThatRenewsTheLocksRunsAtLeastEveryThirdOfTheirTtl() {
		BucketOwnership slowSweep = new BucketOwnership(8, 0, Duration.ofSeconds(9), Duration.ofSeconds(30),
				this.clock::get);
		slowSweep.swept();
		slowSweep.ownershipChecked();

		this.clock.addAndGet(3 * SECOND - 1);
		assertThat(slowSweep.sweepDue()).isFalse();
		this.clock.addAndGet(1);
		assertThat(slowSweep.sweepDue()).isTrue();
		assertThat(slowSweep.ownershipCheckDue()).isTrue();
	}

	@Test
	void aBucketIsDueWhenItsPlannedTimeComes() {
		this.ownership.take(4);
		this.ownership.wakeIn(4, 200);

		this.clock.addAndGet(200 * MILLI - 1);
		assertThat(this.ownership.isDue(4)).isFalse();
		this.clock.addAndGet(1);
		assertThat(this.ownership.isDue(4)).isTrue();

		this.ownership.wakeIn(4, 0);
		assertThat(this.ownership.isDue(4)).as("more than a batch was due: at once").isTrue();
		this.ownership.idle(4);
		this.clock.addAndGet(3600 * SECOND);
		assertThat(this.ownership.isDue(4)).as("nothing due: only a hint or the sweep").isFalse();
	}

	@Test
	void theEarliestOfCheckSweepAndOwnedBucketsIsWaitedFor() {
		this.ownership.take(2);
		this.ownership.take(5);
		this.ownership.take(7);
		this.ownership.ownershipChecked();
		this.ownership.swept();
		assertThat(this.ownership.nanosToNextWakeUp()).as("the sweep").isEqualTo(SECOND);

		this.ownership.wakeIn(2, 200);
		this.ownership.wakeIn(5, 50);
		this.ownership.idle(7);
		assertThat(this.ownership.nanosToNextWakeUp()).isEqualTo(50 * MILLI);

		this.ownership.forget(5);
		assertThat(this.ownership.nanosToNextWakeUp()).isEqualTo(200 * MILLI);

		this.clock.addAndGet(250 * MILLI);
		assertThat(this.ownership.nanosToNextWakeUp()).as("overdue").isEqualTo(-50 * MILLI);
	}

	@Test
	void theOwnershipCheckIsWaitedForWhenItComesFirst() {
		BucketOwnership slowSweep = new BucketOwnership(8, 0, Duration.ofSeconds(9), Duration.ofSeconds(30),
				this.clock::get);
		slowSweep.swept();
		this.clock.addAndGet(SECOND);
		slowSweep.ownershipChecked();

		assertThat(slowSweep.nanosToNextWakeUp()).as("sweep 2s from now, check 3s").isEqualTo(2 * SECOND);
		this.clock.addAndGet(2 * SECOND);
		slowSweep.swept();
		assertThat(slowSweep.nanosToNextWakeUp()).as("check 1s from now, sweep 3s").isEqualTo(SECOND);
	}

	@Test
	void aFailurePutsEverythingOffBySameDelay() {
		this.ownership.take(1);
		this.ownership.wakeIn(1, 0);
		this.ownership.take(6);
		this.ownership.idle(6);

		this.ownership.backOff(Duration.ofSeconds(1));

		assertThat(this.ownership.ownershipCheckDue()).isFalse();
		assertThat(this.ownership.sweepDue()).isFalse();
		assertThat(this.ownership.isDue(1)).isFalse();
		assertThat(this.ownership.nanosToNextWakeUp()).isEqualTo(SECOND);
		this.clock.addAndGet(SECOND);
		assertThat(this.ownership.ownershipCheckDue()).isTrue();
		assertThat(this.ownership.sweepDue()).isTrue();
		assertThat(this.ownership.isDue(1)).isTrue();
		assertThat(this.ownership.isDue(6)).as("an idle bucket is retried too").isTrue();
	}

	@Test
	void aWakeUpThatArrivesBeforeTheWaitStartsIsNotLost() throws InterruptedException {
		BucketOwnership plan = anHourOfNothing();
		plan.take(3);
		plan.swept();

		assertThat(plan.wakeNow(3)).isTrue();

		long started = System.nanoTime();
		plan.awaitNextWakeUp(this.running::get);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
		assertThat(plan.isDue(3)).isTrue();
	}

	@Test
	void aWakeUpDuringTheWaitEndsIt() {
		BucketOwnership plan = anHourOfNothing();
		plan.take(3);
		plan.swept();
		Thread waiter = startWaiting(plan);

		assertThat(plan.wakeNow(3)).isTrue();

		await().atMost(Duration.ofSeconds(5)).until(() -> !waiter.isAlive());
		assertThat(plan.isDue(3)).isTrue();
	}

	@Test
	void aWakeUpForABucketOwnedElsewhereLeavesTheWaitAlone() {
		BucketOwnership plan = anHourOfNothing();
		Thread waiter = startWaiting(plan);

		assertThat(plan.wakeNow(3)).isFalse();

		await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(1)).until(waiter::isAlive);
	}

	@Test
	void wakeAllEndsTheWaitAndAStoppedMigratorDoesNotWait() throws InterruptedException {
		BucketOwnership plan = anHourOfNothing();
		Thread waiter = startWaiting(plan);

		this.running.set(false);
		plan.wakeAll();

		await().atMost(Duration.ofSeconds(5)).until(() -> !waiter.isAlive());
		long started = System.nanoTime();
		plan.awaitNextWakeUp(this.running::get);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
	}

	@Test
	void aClockBelowZeroChangesNothing() {
		this.clock.set(-5 * SECOND);
		BucketOwnership negative = new BucketOwnership(8, 0, Duration.ofSeconds(9), Duration.ofSeconds(1),
				this.clock::get);
		negative.ownershipChecked();
		negative.take(0);
		negative.swept();
		negative.idle(0);

		assertThat(negative.isDue(0)).isFalse();
		assertThat(negative.nanosToNextWakeUp()).isEqualTo(SECOND);
	}

	/**
	 * A plan whose ownership check and sweep are an hour away, on a clock that stands
	 * still.
	 */
	private BucketOwnership anHourOfNothing() {
		BucketOwnership plan = new BucketOwnership(8, 0, Duration.ofHours(3), Duration.ofHours(1), this.clock::get);
		plan.ownershipChecked();
		plan.swept();
		assertThat(plan.nanosToNextWakeUp()).isEqualTo(3600 * SECOND);
		return plan;
	}

	private Thread startWaiting(BucketOwnership plan) {
		Thread waiter = new Thread(() -> {
			try {
				plan.awaitNextWakeUp(this.running::get);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}, "waiter");
		this.waiter = waiter;
		this.waitingOn = plan;
		waiter.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
		return waiter;
	}

}
