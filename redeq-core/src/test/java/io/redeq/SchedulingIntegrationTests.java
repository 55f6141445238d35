package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

/**
 * Scheduling, lookup, cancel, reschedule and the duplicate policies, on a real
 * redis-server. The migrator is off here so that jobs stay where the test put them.
 */
@RedisTest
class SchedulingIntegrationTests {

	private final RedisClient lettuce;

	private Redeq redeq;

	private RedeqClient client;

	SchedulingIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		this.redeq = Redeq.builder(this.lettuce).migratorEnabled(false).build();
		this.client = this.redeq.client();
	}

	@AfterEach
	void stop() {
		this.redeq.close();
	}

	@Test
	void schedulesByDelayOnTheRedisClock() {
		long redisNow = redisTimeMillis();
		String id = this.client.schedule("order.timeout", new OrderTimeout(42), Duration.ofMinutes(30));

		JobInfo info = this.client.find("order.timeout", id).orElseThrow();
		assertThat(info.state()).isEqualTo(JobState.DELAYED);
		assertThat(info.topic()).isEqualTo("order.timeout");
		assertThat(info.attempts()).isZero();
		assertThat(info.dueAt().toEpochMilli()).isCloseTo(redisNow + Duration.ofMinutes(30).toMillis(), within(1000L));
		assertThat(id).hasSize(22);
	}

	@Test
	void schedulesAtAnInstant() {
		Instant due = Instant.parse("2030-12-01T09:00:00Z");
		String id = this.client.scheduleAt("reminder", "call mum", due);

		assertThat(this.client.find("reminder", id)).get().extracting(JobInfo::dueAt).isEqualTo(due);
	}

	@Test
	void cancelsAWaitingJobOnce() {
		String id = this.client.schedule("order.timeout", new OrderTimeout(1), Duration.ofHours(1));

		assertThat(this.client.cancel("order.timeout", id)).isTrue();
		assertThat(this.client.cancel("order.timeout", id)).isFalse();
		assertThat(this.client.find("order.timeout", id)).isEmpty();
		assertThat(this.redeq.admin().stats("order.timeout").pending()).isZero();
	}

	@Test
	void cancelOfAnUnknownJobIsFalse() {
		assertThat(this.client.cancel("order.timeout", "nope")).isFalse();
	}

	@Test
	void reschedulesByDelayAndInstant() {
		this.client.schedule(Job.builder("order.timeout")
			.id("order-7")
			.payload(new OrderTimeout(7))
			.delay(Duration.ofHours(1))
			.build());

		assertThat(this.client.reschedule("order.timeout", "order-7", Duration.ofMinutes(5))).isTrue();
		assertThat(this.client.find("order.timeout", "order-7").orElseThrow().dueAt().toEpochMilli())
			.isCloseTo(redisTimeMillis() + Duration.ofMinutes(5).toMillis(), within(1000L));

		Instant at = Instant.parse("2031-01-01T00:00:00Z");
		assertThat(this.client.reschedule("order.timeout", "order-7", at)).isTrue();
		assertThat(this.client.find("order.timeout", "order-7").orElseThrow().dueAt()).isEqualTo(at);
		assertThat(this.client.reschedule("order.timeout", "unknown", at)).isFalse();
	}

	@Test
	void replaceIsTheDefaultDuplicatePolicy() {
		Job first = Job.builder("order.timeout")
			.id("order-9")
			.payload(new OrderTimeout(9))
			.delay(Duration.ofHours(1))
			.build();
		Job second = Job.builder("order.timeout")
			.id("order-9")
			.payload(new OrderTimeout(99))
			.delay(Duration.ofHours(2))
			.build();

		this.client.schedule(first);
		this.client.schedule(second);

		assertThat(this.client.find("order.timeout", "order-9").orElseThrow().dueAt().toEpochMilli())
			.isCloseTo(redisTimeMillis() + Duration.ofHours(2).toMillis(), within(1000L));
		assertThat(this.redeq.admin().stats("order.timeout").delayed()).isEqualTo(1);
	}

	@Test
	void keepLeavesTheExistingJobUntouched() {
		Instant original = Instant.parse("2030-01-01T00:00:00Z");
		this.client.schedule(Job.builder("t").id("k").payload(1).dueAt(original).build());

		String id = this.client.schedule(Job.builder("t")
			.id("k")
			.payload(2)
			.dueAt(original.plusSeconds(60))
			.onDuplicate(Duplicate.KEEP)
			.build());

		assertThat(id).isEqualTo("k");
		assertThat(this.client.find("t", "k").orElseThrow().dueAt()).isEqualTo(original);
	}

	@Test
	void rejectThrowsForAnExistingId() {
		this.client.schedule(Job.builder("t").id("r").payload(1).delay(Duration.ofHours(1)).build());

		assertThatExceptionOfType(DuplicateJobException.class).isThrownBy(() -> this.client.schedule(
				Job.builder("t").id("r").payload(2).delay(Duration.ofHours(1)).onDuplicate(Duplicate.REJECT).build()))
			.withMessageContaining("'r' in topic 't'")
			.withMessageContaining("REJECT");
	}

	@Test
	void scheduleAllReturnsIdsInOrderAndWritesEveryJob() {
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			jobs.add(Job.builder("bulk").id("job-" + i).payload(Map.of("n", i)).delay(Duration.ofHours(1)).build());
		}

		List<String> ids = this.client.scheduleAll(jobs);

		assertThat(ids).hasSize(1000).startsWith("job-0", "job-1").endsWith("job-999");
		assertThat(this.redeq.admin().stats("bulk").delayed()).isEqualTo(1000);
		assertThat(this.redeq.admin().topics()).contains("bulk");
	}

	@Test
	void badInputIsRefusedWithTheValueNamed() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.schedule("t", 1, Duration.ofSeconds(-1)))
			.withMessageContaining("must not be negative")
			.withMessageContaining("PT-1S");
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.schedule(" ", 1, Duration.ZERO))
			.withMessageContaining("blank");
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.schedule("a:b", 1, Duration.ZERO))
			.withMessageContaining("'a:b'")
			.withMessageContaining("malformed");
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.schedule(null, 1, Duration.ZERO))
			.withMessageContaining("null");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.client.schedule(Job.builder("t").id("has space").payload(1).build()))
			.withMessageContaining("'has space'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.client.schedule(Job.builder("t").id("x".repeat(201)).payload(1).build()))
			.withMessageContaining("201")
			.withMessageContaining("200");
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.scheduleAt("t", 1, null))
			.withMessageContaining("dueAt");
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.cancel("t", ""))
			.withMessageContaining("empty");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.client.schedule("t", new Unwritable(), Duration.ZERO))
			.withMessageContaining("cannot be written as JSON")
			.withMessageContaining(Unwritable.class.getName());
		assertThat(this.redeq.admin().topics()).isEmpty();
	}

	@Test
	void payloadLargerThanTheLimitIsRefused() {
		try (Redeq small = Redeq.builder(this.lettuce).migratorEnabled(false).maxPayloadSize(100).build()) {
			assertThatExceptionOfType(PayloadTooLargeException.class)
				.isThrownBy(() -> small.client().schedule("t", "x".repeat(200), Duration.ZERO))
				.withMessageContaining("202 bytes")
				.withMessageContaining("100");
		}
	}

	@Test
	void topicBeyondMaxPendingIsRefusedAndNothingWritten() {
		try (Redeq capped = Redeq.builder(this.lettuce)
			.prefix("capped")
			.migratorEnabled(false)
			.buckets(1)
			.maxPending(3)
			.build()) {
			for (int i = 0; i < 3; i++) {
				capped.client().schedule("capped", i, Duration.ofHours(1));
			}
			assertThatExceptionOfType(CapacityExceededException.class)
				.isThrownBy(() -> capped.client().schedule(Job.builder("capped").id("fourth").payload(4).build()))
				.withMessageContaining("'capped'")
				.withMessageContaining("max-pending=3");
			assertThat(capped.client().find("capped", "fourth")).isEmpty();
			assertThat(capped.admin().stats("capped").delayed()).isEqualTo(3);
		}
	}

	@Test
	void aBatchStopsAtTheCapacityJobByJobAndAFullTopicStillTakesReplacements() {
		try (Redeq capped = Redeq.builder(this.lettuce)
			.prefix("batchcap")
			.migratorEnabled(false)
			.buckets(1)
			.maxPending(3)
			.build()) {
			List<Job> five = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				five.add(Job.builder("capped").id("c" + i).payload(i).delay(Duration.ofHours(1)).build());
			}
			assertThatExceptionOfType(CapacityExceededException.class)
				.isThrownBy(() -> capped.client().scheduleAll(five))
				.withMessageContaining("'c3' in topic 'capped'");
			assertThat(capped.admin().stats("capped").delayed()).isEqualTo(3);
			assertThat(capped.client().find("capped", "c2")).isPresent();
			assertThat(capped.client().find("capped", "c3")).isEmpty();

			capped.client().schedule(Job.builder("capped").id("c0").payload(99).delay(Duration.ofHours(2)).build());
			assertThat(capped.admin().stats("capped").delayed()).isEqualTo(3);
		}
	}

	private long redisTimeMillis() {
		RedisCommands<String, String> commands = this.lettuce.connect().sync();
		List<String> time = commands.time();
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

	record OrderTimeout(long orderId) {
	}

	public static class Unwritable {

		public String getValue() {
			throw new IllegalStateException("not today");
		}

	}

}
