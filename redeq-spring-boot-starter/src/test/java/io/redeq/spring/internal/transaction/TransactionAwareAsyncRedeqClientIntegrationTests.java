package io.redeq.spring.internal.transaction;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.transaction.support.TransactionTemplate;

import io.redeq.AsyncRedeqClient;
import io.redeq.Duplicate;
import io.redeq.DuplicateJobException;
import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.Redeq;
import io.redeq.RedeqClient;
import io.redeq.spring.internal.transaction.TransactionAwareRedeqClientIntegrationTests.NoResourceTransactionManager;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The asynchronous view of {@link TransactionAwareRedeqClient} against a real
 * redis-server: inside a transaction a future completes once the commit sent its change,
 * and is cancelled when the transaction rolls back.
 */
@RedisTest
class TransactionAwareAsyncRedeqClientIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final Redeq redeq;

	private final RedeqClient client;

	private final AsyncRedeqClient async;

	private final TransactionTemplate transaction = new TransactionTemplate(new NoResourceTransactionManager());

	TransactionAwareAsyncRedeqClientIntegrationTests(RedisClient lettuce) {
		this.redeq = Redeq.builder(lettuce).migratorEnabled(false).build();
		this.client = new TransactionAwareRedeqClient(this.redeq.client());
		this.async = this.client.async();
	}

	@AfterEach
	void close() {
		this.redeq.close();
	}

	@Test
	void aFutureMadeInsideATransactionCompletesAfterTheCommitSentIt() {
		CompletableFuture<String> scheduled = this.transaction.execute((status) -> {
			CompletableFuture<String> future = this.async.schedule("order.timeout", "order-1", Duration.ofMinutes(30));
			assertThat(future).isNotDone();
			return future;
		});

		String id = scheduled.join();
		assertThat(id).hasSize(22);
		assertThat(this.client.find("order.timeout", id)).map(JobInfo::state).contains(JobState.DELAYED);
	}

	@Test
	void rollbackCancelsEveryFutureAndSendsNothing() {
		this.client.schedule(Job.builder("t").id("existing").payload("x").delay(Duration.ofHours(1)).build());
		List<CompletableFuture<?>> futures = this.transaction.execute((status) -> {
			List<CompletableFuture<?>> made = List.of(this.async.schedule("t", "a", Duration.ofMinutes(1)),
					this.async.scheduleAt("t", "b", Instant.now().plusSeconds(60)),
					this.async.scheduleAll(List.of(Job.builder("t").id("c").payload("c").build())),
					this.async.cancel("t", "existing"), this.async.reschedule("t", "existing", Duration.ofHours(9)));
			status.setRollbackOnly();
			return made;
		});

		for (CompletableFuture<?> future : futures) {
			assertThat(future).isCancelled();
			assertThat(future).failsWithin(WAIT)
				.withThrowableOfType(CancellationException.class)
				.withMessageContaining("did not commit");
		}
		assertThat(this.client.find("t", "existing")).isPresent();
		assertThat(this.redeq.admin().stats("t").delayed()).isEqualTo(1);
	}

	@Test
	void cancelAndRescheduleCompleteWithRedisAnswerAfterCommit() {
		this.client.schedule(Job.builder("t").id("to-cancel").payload("x").delay(Duration.ofHours(1)).build());
		this.client.schedule(Job.builder("t").id("to-move").payload("x").delay(Duration.ofHours(1)).build());
		List<CompletableFuture<Boolean>> answers = this.transaction.execute((status) -> {
			List<CompletableFuture<Boolean>> made = List.of(this.async.cancel("t", "to-cancel"),
					this.async.reschedule("t", "to-move", Duration.ofHours(5)), this.async.cancel("t", "unknown"),
					this.async.reschedule("t", "unknown", Duration.ofHours(5)));
			assertThat(this.client.find("t", "to-cancel")).isPresent();
			return made;
		});

		assertThat(answers).extracting(CompletableFuture::join).containsExactly(true, true, false, false);
		assertThat(this.client.find("t", "to-cancel")).isEmpty();
		Duration untilDue = Duration.between(Instant.now(), this.client.find("t", "to-move").get().dueAt());
		assertThat(untilDue).isGreaterThan(Duration.ofHours(4));
	}

	@Test
	void changesToAJobScheduledInTheSameTransactionApplyBeforeItIsSent() {
		List<CompletableFuture<?>> futures = this.transaction.execute((status) -> List.of(
				this.async.schedule(Job.builder("t").id("gone").payload("x").delay(Duration.ofHours(1)).build()),
				this.async.cancel("t", "gone"),
				this.async.schedule(Job.builder("t").id("moved").payload("x").delay(Duration.ofHours(1)).build()),
				this.async.reschedule("t", "moved", Duration.ofHours(7))));

		assertThat(futures.stream().map(CompletableFuture::join).map(Object.class::cast).toList())
			.containsExactly("gone", true, "moved", true);
		assertThat(this.client.find("t", "gone")).isEmpty();
		Duration untilDue = Duration.between(Instant.now(), this.client.find("t", "moved").get().dueAt());
		assertThat(untilDue).isGreaterThan(Duration.ofHours(6));
	}

	@Test
	void aFailureAfterCommitCompletesTheFutureNotTheCommit() {
		Job job = Job.builder("t")
			.id("dup")
			.payload("x")
			.delay(Duration.ofHours(1))
			.onDuplicate(Duplicate.REJECT)
			.build();
		this.client.schedule(job);

		CompletableFuture<String> again = this.transaction.execute((status) -> this.async.schedule(job));

		assertThat(again).failsWithin(WAIT)
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(DuplicateJobException.class);
	}

	@Test
	void syncAndAsyncChangesOfOneTransactionAreSentInCallOrder() {
		this.transaction.executeWithoutResult((status) -> {
			this.client.schedule(Job.builder("t").id("order").payload("x").delay(Duration.ofHours(1)).build());
			this.async.reschedule("t", "order", Duration.ofHours(3));
			this.async.cancel("t", "order");
			this.client.schedule(Job.builder("t").id("order").payload("y").delay(Duration.ofHours(2)).build());
		});

		JobInfo info = this.async.find("t", "order").join().orElseThrow();
		Duration untilDue = Duration.between(Instant.now(), info.dueAt());
		assertThat(untilDue).isBetween(Duration.ofMinutes(100), Duration.ofMinutes(121));
	}

	@Test
	void outsideATransactionCallsGoStraightThroughAndBadInputThrowsAtTheCall() {
		String id = this.async.schedule("t", "x", Duration.ofMinutes(1)).join();
		assertThat(this.async.cancel("t", id).join()).isTrue();
		this.transaction.executeWithoutResult((status) -> assertThatIllegalArgumentException()
			.isThrownBy(() -> this.async.schedule("t", "x", Duration.ofSeconds(-1))));
	}

}
