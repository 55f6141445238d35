package io.redeq.spring.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import io.redeq.AsyncRedeqClient;
import io.redeq.DuplicateJobException;
import io.redeq.Job;
import io.redeq.PolledJob;
import io.redeq.Recurring;
import io.redeq.RedeqClient;
import io.redeq.RedeqUnavailableException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

class BlockingRedeqClientTests {

	private final AsyncRedeqClient async = mock(AsyncRedeqClient.class);

	private final RedeqClient target = mock(RedeqClient.class);

	private final BlockingRedeqClient client = new BlockingRedeqClient(this.async, this.target);

	@Test
	void returnsTheValueOfTheAsynchronousCall() {
		given(this.async.schedule("orders", "p", Duration.ofSeconds(5)))
			.willReturn(CompletableFuture.completedFuture("id-1"));
		given(this.async.cancel("orders", "id-1")).willReturn(CompletableFuture.completedFuture(true));
		assertThat(this.client.schedule("orders", "p", Duration.ofSeconds(5))).isEqualTo("id-1");
		assertThat(this.client.cancel("orders", "id-1")).isTrue();
		assertThat(this.client.async()).isSameAs(this.async);
	}

	@Test
	void throwsTheFailureOfTheFutureItself() {
		DuplicateJobException duplicate = new DuplicateJobException("orders", "id-1", "a job with id 'id-1' exists");
		Job job = Job.builder("orders").id("id-1").build();
		given(this.async.schedule(job)).willReturn(CompletableFuture.failedFuture(duplicate));
		assertThatExceptionOfType(DuplicateJobException.class).isThrownBy(() -> this.client.schedule(job))
			.isSameAs(duplicate);
	}

	@Test
	void unwrapsTheFailureOfADependentStage() {
		RedeqUnavailableException down = new RedeqUnavailableException("Redis down", new IOException("reset"));
		CompletableFuture<Boolean> failed = CompletableFuture.<Boolean>failedFuture(down).thenApply((done) -> done);
		given(this.async.reschedule("orders", "id-1", Duration.ofSeconds(1))).willReturn(failed);
		assertThatExceptionOfType(RedeqUnavailableException.class)
			.isThrownBy(() -> this.client.reschedule("orders", "id-1", Duration.ofSeconds(1)))
			.isSameAs(down);
	}

	@Test
	void aCheckedFailureIsThrownAsACompletionException() {
		IOException io = new IOException("reset");
		given(this.async.find("orders", "id-1")).willReturn(CompletableFuture.failedFuture(io));
		assertThatExceptionOfType(CompletionException.class).isThrownBy(() -> this.client.find("orders", "id-1"))
			.withCause(io);
	}

	@Test
	void anArgumentRefusedAtTheCallIsThrownAsItIs() {
		IllegalArgumentException refused = new IllegalArgumentException("topic must not be blank");
		given(this.async.cancel(" ", "id-1")).willThrow(refused);
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.cancel(" ", "id-1")).isSameAs(refused);
	}

	@Test
	void anInterruptedWaitFailsAsUnavailableAndKeepsTheInterrupt() throws InterruptedException {
		given(this.async.find("orders", "id-1")).willReturn(new CompletableFuture<>());
		AtomicReference<Throwable> thrown = new AtomicReference<>();
		AtomicReference<Boolean> interrupted = new AtomicReference<>();
		Thread caller = new Thread(() -> {
			Thread.currentThread().interrupt();
			try {
				this.client.find("orders", "id-1");
			}
			catch (RuntimeException ex) {
				thrown.set(ex);
			}
			interrupted.set(Thread.currentThread().isInterrupted());
		});
		caller.start();
		caller.join(10_000);
		assertThat(caller.isAlive()).isFalse();
		assertThat(thrown.get()).isInstanceOf(RedeqUnavailableException.class)
			.hasMessageContaining("Interrupted while waiting")
			.hasMessageContaining("find");
		assertThat(interrupted.get()).isTrue();
	}

	@Test
	void whatOnlyTheBlockingClientHasGoesToTheTarget() {
		PolledJob polled = mock(PolledJob.class);
		Recurring recurring = Recurring.builder("reports").id("daily").every(Duration.ofHours(1)).build();
		given(this.target.poll("orders", Duration.ofSeconds(1))).willReturn(Optional.of(polled));
		given(this.target.cancelAll("orders", List.of("a", "b"))).willReturn(2L);
		given(this.target.scheduleRecurring(recurring)).willReturn("daily");
		given(this.target.cancelRecurring("reports", "daily")).willReturn(true);
		assertThat(this.client.poll("orders", Duration.ofSeconds(1))).containsSame(polled);
		assertThat(this.client.cancelAll("orders", List.of("a", "b"))).isEqualTo(2L);
		assertThat(this.client.scheduleRecurring(recurring)).isEqualTo("daily");
		assertThat(this.client.cancelRecurring("reports", "daily")).isTrue();
	}

	@Test
	void aViewOverAnotherViewAwaitsAsTheInnerOneDoes() {
		List<String> awaited = new ArrayList<>();
		BlockingRedeqClient inner = new BlockingRedeqClient(mock(AsyncRedeqClient.class), this.target) {

			@Override
			protected <T> T await(CompletableFuture<T> reply, String operation) {
				awaited.add(operation);
				return super.await(reply, operation);
			}

		};
		BlockingRedeqClient outer = new BlockingRedeqClient(this.async, inner);
		given(this.async.reschedule("orders", "id-1", Duration.ofSeconds(1)))
			.willReturn(CompletableFuture.completedFuture(true));
		assertThat(outer.reschedule("orders", "id-1", Duration.ofSeconds(1))).isTrue();
		assertThat(awaited).containsExactly("reschedule");
	}

}
