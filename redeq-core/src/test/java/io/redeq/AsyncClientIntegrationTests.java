package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link AsyncRedeqClient} on a real redis-server: futures complete with what the
 * synchronous client returns or throws, bad input throws at the call, and a call returns
 * before Redis answers. The migrator is off so that jobs stay where the test put them.
 */
@RedisTest
class AsyncClientIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final RedisClient lettuce;

	private Redeq redeq;

	private AsyncRedeqClient async;

	AsyncClientIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		this.redeq = Redeq.builder(this.lettuce).migratorEnabled(false).commandTimeout(Duration.ofSeconds(2)).build();
		this.async = this.redeq.client().async();
	}

	@AfterEach
	void stop() {
		this.redeq.close();
	}

	@Test
	void schedulesFindsReschedulesAndCancels() {
		String id = this.async.schedule("order.timeout", "42", Duration.ofMinutes(30)).join();

		assertThat(this.redeq.client().find("order.timeout", id)).get()
			.extracting(JobInfo::state)
			.isEqualTo(JobState.DELAYED);
		assertThat(this.async.find("order.timeout", id).join()).get().extracting(JobInfo::id).isEqualTo(id);
		assertThat(this.async.reschedule("order.timeout", id, Duration.ofMinutes(5)).join()).isTrue();
		assertThat(this.async.cancel("order.timeout", id).join()).isTrue();
		assertThat(this.async.cancel("order.timeout", id).join()).isFalse();
		assertThat(this.async.find("order.timeout", id).join()).isEmpty();
		assertThat(this.async.reschedule("order.timeout", id, Duration.ofMinutes(5)).join()).isFalse();
	}

	@Test
	void oneThreadKeepsManySchedulesInFlight() {
		List<CompletableFuture<String>> inFlight = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			inFlight.add(this.async.schedule(Job.builder("many").id("m-" + i).delay(Duration.ofHours(1)).build()));
		}
		CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).join();

		assertThat(inFlight).extracting(CompletableFuture::join).doesNotHaveDuplicates().hasSize(2000);
		assertThat(this.redeq.admin().stats("many").delayed()).isEqualTo(2000);
	}

	@Test
	void aRejectedDuplicateFailsTheFutureWithTheSynchronousClientsException() {
		Job job = Job.builder("orders").id("o-1").delay(Duration.ofHours(1)).onDuplicate(Duplicate.REJECT).build();
		this.async.schedule(job).join();

		CompletableFuture<String> second = this.async.schedule(job);

		AtomicReference<Throwable> seen = new AtomicReference<>();
		second.exceptionally((ex) -> {
			seen.set(ex);
			return null;
		}).join();
		assertThat(seen.get()).isInstanceOf(DuplicateJobException.class).hasMessageContaining("'o-1'");
		assertThat(second).failsWithin(WAIT)
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(DuplicateJobException.class);
	}

	@Test
	void theSynchronousClientThrowsTheSameExceptionWithItsCallersStack() {
		Job job = Job.builder("orders").id("o-2").delay(Duration.ofHours(1)).onDuplicate(Duplicate.REJECT).build();
		this.redeq.client().schedule(job);

		assertThatExceptionOfType(DuplicateJobException.class).isThrownBy(() -> this.redeq.client().schedule(job))
			.withMessageContaining("'o-2'")
			.satisfies((ex) -> assertThat(ex.getStackTrace()).anySatisfy((frame) -> assertThat(frame.getMethodName())
				.isEqualTo("theSynchronousClientThrowsTheSameExceptionWithItsCallersStack")));
	}

	@Test
	void scheduleAllStoresTheOthersAndFailsWithTheFirstFailure() {
		this.async.schedule(Job.builder("batch").id("b-2").delay(Duration.ofHours(1)).build()).join();
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			jobs.add(
					Job.builder("batch").id("b-" + i).delay(Duration.ofHours(1)).onDuplicate(Duplicate.REJECT).build());
		}

		CompletableFuture<List<String>> ids = this.async.scheduleAll(jobs);

		assertThat(ids).failsWithin(WAIT)
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(DuplicateJobException.class)
			.withMessageContaining("'b-2'");
		assertThat(this.redeq.admin().stats("batch").delayed()).isEqualTo(5);
		assertThat(this.async
			.scheduleAll(List.of(Job.builder("batch").id("b-9").build(), Job.builder("batch").id("b-8").build()))
			.join()).containsExactly("b-9", "b-8");
	}

	@Test
	void badInputThrowsAtTheCallAndSendsNothing() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.async.schedule("t", "x", Duration.ofSeconds(-1)))
			.withMessageContaining("-1");
		assertThatIllegalArgumentException().isThrownBy(() -> this.async.cancel("t", " "));
		assertThat(this.redeq.admin().topics()).doesNotContain("t");
	}

	@Test
	void returnsBeforeRedisAnswersAndFailsWithRedeqUnavailableWhenItNeverDoes() {
		this.async.schedule("warm", null, Duration.ofHours(1)).join();
		// Redis answers nothing for 8 s; the command timeout is 2 s.
		this.lettuce.connect().sync().clientPause(8000);

		CompletableFuture<String> scheduled = this.async.schedule("paused", "x", Duration.ofHours(1));
		CompletableFuture<Boolean> cancelled = this.async.cancel("paused", "nope");

		assertThat(scheduled).isNotDone();
		assertThat(cancelled).isNotDone();
		assertThat(scheduled).failsWithin(WAIT)
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(RedeqUnavailableException.class);
		assertThat(cancelled).failsWithin(WAIT)
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(RedeqUnavailableException.class);
	}

}
