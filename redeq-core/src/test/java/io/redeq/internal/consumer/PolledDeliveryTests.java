package io.redeq.internal.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedList;
import java.util.List;

import io.lettuce.core.RedisCommandTimeoutException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import io.redeq.Delivery;
import io.redeq.LeaseExpiredException;
import io.redeq.RedeqUnavailableException;
import io.redeq.internal.redis.ClaimedJob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

class PolledDeliveryTests {

	private static final ClaimedJob JOB = new ClaimedJob(3, "report:r-1", "report", "r-1", 2, 1_000L, 2_000L,
			"{\"name\":\"sales\"}", "token-1");

	private final FakeSettlement settlement = new FakeSettlement();

	private final PolledDelivery job = new PolledDelivery(JOB,
			new Delivery("r-1", "report", 2, Instant.ofEpochMilli(2_000), Instant.ofEpochMilli(1_000)),
			this.settlement);

	@Test
	void describesTheDelivery() {
		assertThat(this.job.id()).isEqualTo("r-1");
		assertThat(this.job.topic()).isEqualTo("report");
		assertThat(this.job.attempt()).isEqualTo(2);
		assertThat(this.job.dueAt()).isEqualTo(Instant.ofEpochMilli(2_000));
		assertThat(this.job.createdAt()).isEqualTo(Instant.ofEpochMilli(1_000));
		assertThat(this.job).hasToString("PolledJob[topic=report, id=r-1, attempt=2]");
	}

	@Test
	void ackCompletesOnceAndRefusesASecondSettlement() {
		this.settlement.completeReplies.add(true);

		this.job.ack();

		assertThat(this.settlement.calls).containsExactly("complete", "succeeded");
		assertThatIllegalStateException().isThrownBy(this.job::ack)
			.withMessageContaining("'r-1' of topic 'report'")
			.withMessageContaining("already acknowledged");
		assertThatIllegalStateException().isThrownBy(() -> this.job.fail(new IllegalStateException()))
			.withMessageContaining("already acknowledged");
		assertThat(this.settlement.calls).containsExactly("complete", "succeeded");
	}

	@Test
	void anAckThatFindsTheClaimLostThrowsAndSoDoesEveryLaterSettlement() {
		this.settlement.completeReplies.add(false);

		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(this.job::ack)
			.withMessageContaining("Cannot ack job 'r-1' of topic 'report' (attempt 2)")
			.satisfies((ex) -> {
				assertThat(ex.topic()).isEqualTo("report");
				assertThat(ex.id()).isEqualTo("r-1");
				assertThat(ex.attempt()).isEqualTo(2);
			});
		assertThatExceptionOfType(LeaseExpiredException.class)
			.isThrownBy(() -> this.job.fail(new IllegalStateException("late")))
			.withMessageContaining("Cannot fail job");
		assertThat(this.settlement.calls).containsExactly("complete");
	}

	@Test
	void aFailThatFindsTheClaimLostThrows() {
		this.settlement.failReplies.add(false);

		assertThatExceptionOfType(LeaseExpiredException.class)
			.isThrownBy(() -> this.job.fail(new IllegalStateException("boom")));
		assertThat(this.settlement.calls).containsExactly("fail java.lang.IllegalStateException: boom");
	}

	@Test
	void anUnansweredAckLeavesTheJobOpenAndAGoneJobAfterItCountsAsCompleted() {
		this.settlement.completeReplies.add(null); // Redis does not answer
		this.settlement.completeReplies.add(false); // the first ack had landed

		assertThatExceptionOfType(RedeqUnavailableException.class).isThrownBy(this.job::ack);
		this.job.ack();

		assertThat(this.settlement.calls).containsExactly("complete", "complete", "succeeded");
		assertThatIllegalStateException().isThrownBy(this.job::ack).withMessageContaining("already acknowledged");
	}

	@Test
	void anUnansweredFailLeavesTheJobOpen() {
		this.settlement.failReplies.add(null);
		this.settlement.failReplies.add(true);

		assertThatExceptionOfType(RedeqUnavailableException.class)
			.isThrownBy(() -> this.job.fail(new IllegalStateException("boom")));
		this.job.fail(new IllegalStateException("boom"));

		assertThatIllegalStateException().isThrownBy(this.job::ack).withMessageContaining("already failed");
	}

	@Test
	void failNeedsTheError() {
		assertThatNullPointerException().isThrownBy(() -> this.job.fail(null)).withMessageContaining("error");
		assertThat(this.settlement.calls).isEmpty();
	}

	@Test
	void aPayloadThatCannotBeReadIsRefusedNamingTheJobAndTheType() {
		this.settlement.readFailure = new IllegalStateException("Unexpected character");

		assertThatIllegalArgumentException().isThrownBy(() -> this.job.payload(Integer.class))
			.withMessageContaining("'r-1' of topic 'report'")
			.withMessageContaining("java.lang.Integer")
			.withMessageContaining("Unexpected character")
			.withMessageContaining("NotRetryableException");
	}

	private static final class FakeSettlement implements PolledDelivery.Settlement {

		final List<String> calls = new ArrayList<>();

		/** Per call, the answer; {@code null}: Redis does not answer. */
		final Deque<@Nullable Boolean> completeReplies = new LinkedList<>();

		final Deque<@Nullable Boolean> failReplies = new LinkedList<>();

		@Nullable RuntimeException readFailure;

		@Override
		public @Nullable Object read(ClaimedJob job, Class<?> type) {
			if (this.readFailure != null) {
				throw this.readFailure;
			}
			return job.payload();
		}

		@Override
		public boolean complete(ClaimedJob job) {
			this.calls.add("complete");
			return answer(this.completeReplies.removeFirst());
		}

		@Override
		public void succeeded(ClaimedJob job, Delivery delivery, Duration took) {
			this.calls.add("succeeded");
		}

		@Override
		public boolean fail(ClaimedJob job, Delivery delivery, Throwable error, Duration took) {
			this.calls.add("fail " + error);
			return answer(this.failReplies.removeFirst());
		}

		private static boolean answer(@Nullable Boolean reply) {
			if (reply == null) {
				throw new RedeqUnavailableException("no answer", new RedisCommandTimeoutException("timed out"));
			}
			return reply;
		}

	}

}
