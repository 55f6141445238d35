package io.redeq;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.redeq.test.JavaProcess;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An instance whose clock is 30 s off still schedules by delay and delivers on time,
 * because due-ness is judged on the Redis clock. The skew is real: the instance is a
 * second JVM whose wall clock (what {@code System.currentTimeMillis()},
 * {@code Instant.now()} and the {@code java.time} clocks answer, in the JDK and in
 * Lettuce alike) the test support's clock-shift agent puts 30 s behind. Redis keeps the
 * machine's real clock: it is the reference the instance is off from. (A clock-bound
 * implementation fails either way: 30 s behind it would deliver after 31 s, 30 s ahead at
 * once.)
 */
@RedisTest
class ClockSkewIntegrationTests {

	private final RedisServer server;

	ClockSkewIntegrationTests(RedisServer server) {
		this.server = server;
	}

	@Test
	void anInstance30sBehindSchedulesAndDeliversOnTime() {
		assertDeliveredOnTime(Duration.ofSeconds(-30));
	}

	private void assertDeliveredOnTime(Duration skew) {
		try (JavaProcess instance = JavaProcess.startWithClockOffset(SkewedClockInstance.class, skew,
				this.server.uri().toString())) {
			String scheduled = instance.awaitLine((line) -> line.startsWith("SCHEDULED"), Duration.ofSeconds(120));
			long dueInMs = Long.parseLong(scheduled.replaceAll(".*dueInMs=(-?\\d+).*", "$1"));
			long childNow = Long.parseLong(scheduled.replaceAll(".*localNow=(\\d+).*", "$1"));
			long childInstant = Long.parseLong(scheduled.replaceAll(".*localInstant=(\\d+).*", "$1"));
			long now = System.currentTimeMillis();
			assertThat(childNow - now).as("the child's System.currentTimeMillis() really is off")
				.isBetween(skew.toMillis() - 3000, skew.toMillis() + 3000);
			assertThat(childInstant - now).as("the child's Instant.now() really is off")
				.isBetween(skew.toMillis() - 3000, skew.toMillis() + 3000);
			// Redis time read just before scheduling: due must be 1 s after it (plus the
			// time the call took), where a clock-bound engine would put it
			// 29 s before it.
			assertThat(dueInMs).as("due time minus Redis time before scheduling with a 1 s delay")
				.isBetween(1000L, 6000L);

			String delivered = instance.awaitLine((line) -> line.contains("DELIVERED"), Duration.ofSeconds(60));
			assertThat(delivered).startsWith("DELIVERED");
			long afterMs = Long.parseLong(delivered.replaceAll(".*afterMs=(\\d+).*", "$1"));
			// A clock-bound implementation would start after ~31 s here; the bound above
			// 1 s leaves room for a loaded machine.
			assertThat(afterMs).as("handler start after scheduling, ms").isBetween(950L, 5_000L);
		}
	}

}
