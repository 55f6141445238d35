package io.redeq.benchmark;

import java.util.List;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * The Redis server's clock, read locally: an offset between {@link System#nanoTime()} and
 * Redis TIME, taken from the sample with the shortest round trip (the reply is assumed to
 * be taken at its middle), so handler start times can be compared with due times, which
 * Redis stamps.
 */
final class RedisClock {

	private final long baseNanos;

	private final long baseRedisMicros;

	/** Half the round trip of the chosen sample: the offset's uncertainty. */
	private final long errorMicros;

	private RedisClock(long baseNanos, long baseRedisMicros, long errorMicros) {
		this.baseNanos = baseNanos;
		this.baseRedisMicros = baseRedisMicros;
		this.errorMicros = errorMicros;
	}

	static RedisClock calibrate(RedisCommands<String, String> redis) {
		long bestRtt = Long.MAX_VALUE;
		long bestMid = 0;
		long bestRedis = 0;
		for (int i = 0; i < 50; i++) {
			long before = System.nanoTime();
			List<String> time = redis.time();
			long after = System.nanoTime();
			long rtt = after - before;
			if (rtt < bestRtt) {
				bestRtt = rtt;
				bestMid = before + rtt / 2;
				bestRedis = Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
			}
		}
		return new RedisClock(bestMid, bestRedis, bestRtt / 2000);
	}

	/**
	 * Redis time in microseconds at local {@code System.nanoTime()} value {@code nanos}.
	 */
	long redisMicrosAt(long nanos) {
		return this.baseRedisMicros + (nanos - this.baseNanos) / 1000;
	}

	long nowMicros() {
		return redisMicrosAt(System.nanoTime());
	}

	long nowMillis() {
		return nowMicros() / 1000;
	}

	long errorMicros() {
		return this.errorMicros;
	}

	/**
	 * How far {@code later}'s reading of the Redis clock differs from this one's, in
	 * microseconds.
	 */
	long driftMicros(RedisClock later) {
		long now = System.nanoTime();
		return later.redisMicrosAt(now) - redisMicrosAt(now);
	}

}
