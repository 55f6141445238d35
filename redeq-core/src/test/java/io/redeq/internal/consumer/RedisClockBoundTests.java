package io.redeq.internal.consumer;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedisClockBound}: the local time at which Redis's clock has surely reached a due
 * time, from the replies' script times and arrivals.
 */
class RedisClockBoundTests {

	private static final long MILLI = 1_000_000L;

	private final RedisClockBound bound = new RedisClockBound();

	@Test
	void aSingleReplyBoundsRedisTimeFromItsArrival() {
		// The script ran at Redis time 1,000 s; its reply was in at local time 5 s.
		this.bound.replied(1_000_000_000L, 5_000 * MILLI);

		long until = this.bound.nanosUntil(1_000_000_000L + 4_000, 5_000 * MILLI + MILLI);

		assertThat(until).as("4 ms after the script ran, 1 ms of them gone").isEqualTo(3 * MILLI + drift(4 * MILLI));
	}

	@Test
	void theReplyThatWaitedLeastOnItsWayGivesTheBound() {
		this.bound.replied(1_000_000_000L, 5_000 * MILLI);
		// 2 ms later on Redis's clock, but in 2.5 ms later: it waited 0.5 ms longer.
		this.bound.replied(1_000_002_000L, 5_000 * MILLI + 5 * MILLI / 2);

		assertThat(this.bound.nanosUntil(1_000_010_000L, 5_000 * MILLI)).isEqualTo(10 * MILLI + drift(10 * MILLI));

		// 3 ms later on Redis's clock, in 2.9 ms later: 0.1 ms less on its way.
		this.bound.replied(1_000_003_000L, 5_000 * MILLI + 29 * MILLI / 10);

		assertThat(this.bound.nanosUntil(1_000_010_000L, 5_000 * MILLI)).isEqualTo(99 * MILLI / 10 + drift(7 * MILLI));
	}

	@Test
	void aBoundOlderThanItsKeepingTimeGivesWayToTheNextReply() {
		this.bound.replied(1_000_000_000L, 5_000 * MILLI);
		long later = 5_000 * MILLI + RedisClockBound.KEEP_NANOS + MILLI;
		// A slower reply: it took 1 ms more than the kept one, which is dropped.
		this.bound.replied(1_000_000_000L + (RedisClockBound.KEEP_NANOS + MILLI) / 1000 - 1_000, later);

		assertThat(this.bound.nanosUntil(1_000_000_000L + (RedisClockBound.KEEP_NANOS + MILLI) / 1000, later))
			.isEqualTo(MILLI + drift(MILLI));
	}

	@Test
	void aJobNeverStartsBeforeRedisClockReachesItsDueTime() {
		SplittableRandom random = new SplittableRandom(11);
		// Redis's clock, on the local one.
		long redisMinusLocal = 1_700_000_000_000L * MILLI;
		long local = 0;
		for (int i = 0; i < 100_000; i++) {
			local += random.nextLong(5_000, 2 * MILLI);
			long ranAtMicros = (local + redisMinusLocal) / 1000;
			long repliedAt = local + random.nextLong(50_000, 5 * MILLI);
			this.bound.replied(ranAtMicros, repliedAt);

			long dueMicros = ranAtMicros + random.nextLong(0, 4_000);
			long startAt = repliedAt + Math.max(0, this.bound.nanosUntil(dueMicros, repliedAt));

			assertThat(startAt + redisMinusLocal).as("Redis time at the start")
				.isGreaterThanOrEqualTo(dueMicros * 1000);
		}
	}

	private static long drift(long nanos) {
		return nanos / 1_000_000 * RedisClockBound.DRIFT_PER_MILLION;
	}

}
