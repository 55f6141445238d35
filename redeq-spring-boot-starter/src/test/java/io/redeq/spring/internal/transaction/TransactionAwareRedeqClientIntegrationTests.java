package io.redeq.spring.internal.transaction;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.Redeq;
import io.redeq.RedeqClient;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link TransactionAwareRedeqClient} against a real redis-server: changes made inside a
 * transaction reach Redis on commit only.
 */
@RedisTest
class TransactionAwareRedeqClientIntegrationTests {

	private final Redeq redeq;

	private final RedeqClient client;

	private final TransactionTemplate transaction = new TransactionTemplate(new NoResourceTransactionManager());

	TransactionAwareRedeqClientIntegrationTests(RedisClient lettuce) {
		this.redeq = Redeq.builder(lettuce).migratorEnabled(false).build();
		this.client = new TransactionAwareRedeqClient(this.redeq.client());
	}

	@AfterEach
	void close() {
		this.redeq.close();
	}

	@Test
	void scheduleInsideATransactionIsSentOnCommit() {
		String id = this.transaction.execute((status) -> {
			String scheduled = this.client.schedule("order.timeout", "order-1", Duration.ofMinutes(30));
			assertThat(scheduled).hasSize(22);
			assertThat(this.client.find("order.timeout", scheduled)).isEmpty();
			return scheduled;
		});
		assertThat(this.client.find("order.timeout", id)).map(JobInfo::state).contains(JobState.DELAYED);
	}

	@Test
	void rollbackDropsEverything() {
		String existing = this.client
			.schedule(Job.builder("t").id("existing").payload("x").delay(Duration.ofHours(1)).build());
		List<String> ids = this.transaction.execute((status) -> {
			String a = this.client.schedule("t", "a", Duration.ofMinutes(1));
			String b = this.client.scheduleAt("t", "b", java.time.Instant.now().plusSeconds(60));
			List<String> batch = this.client.scheduleAll(List.of(Job.builder("t").id("c").payload("c").build()));
			assertThat(this.client.cancel("t", existing)).isTrue();
			status.setRollbackOnly();
			return List.of(a, b, batch.get(0));
		});
		for (String id : ids) {
			assertThat(this.client.find("t", id)).isEmpty();
		}
		assertThat(this.client.find("t", existing)).isPresent();
		assertThat(this.redeq.admin().stats("t").delayed()).isEqualTo(1);
	}

	@Test
	void cancelAndRescheduleApplyOnCommit() {
		this.client.schedule(Job.builder("t").id("to-cancel").payload("x").delay(Duration.ofHours(1)).build());
		this.client.schedule(Job.builder("t").id("to-move").payload("x").delay(Duration.ofHours(1)).build());
		this.transaction.executeWithoutResult((status) -> {
			assertThat(this.client.cancel("t", "to-cancel")).isTrue();
			assertThat(this.client.reschedule("t", "to-move", Duration.ofHours(5))).isTrue();
			assertThat(this.client.cancel("t", "unknown")).isFalse();
			assertThat(this.client.reschedule("t", "unknown", Duration.ofHours(5))).isFalse();
			// Not applied yet.
			assertThat(this.client.find("t", "to-cancel")).isPresent();
		});
		assertThat(this.client.find("t", "to-cancel")).isEmpty();
		Duration untilDue = Duration.between(java.time.Instant.now(), this.client.find("t", "to-move").get().dueAt());
		assertThat(untilDue).isGreaterThan(Duration.ofHours(4));
	}

	@Test
	void changesToAJobScheduledInTheSameTransactionApplyBeforeItIsSent() {
		this.transaction.executeWithoutResult((status) -> {
			this.client.schedule(Job.builder("t").id("gone").payload("x").delay(Duration.ofHours(1)).build());
			assertThat(this.client.cancel("t", "gone")).isTrue();
			this.client.schedule(Job.builder("t").id("moved").payload("x").delay(Duration.ofHours(1)).build());
			assertThat(this.client.reschedule("t", "moved", Duration.ofHours(7))).isTrue();
		});
		assertThat(this.client.find("t", "gone")).isEmpty();
		Duration untilDue = Duration.between(java.time.Instant.now(), this.client.find("t", "moved").get().dueAt());
		assertThat(untilDue).isGreaterThan(Duration.ofHours(6));
	}

	@Test
	void outsideATransactionCallsGoStraightThrough() {
		String id = this.client.schedule("t", "x", Duration.ofMinutes(1));
		assertThat(this.client.find("t", id)).isPresent();
		assertThat(this.client.cancel("t", id)).isTrue();
		assertThat(this.client.find("t", id)).isEmpty();
	}

	@Test
	void badInputFailsAtTheCallInsideATransaction() {
		this.transaction.executeWithoutResult((status) -> {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> this.client.schedule("t", "x", Duration.ofSeconds(-1)))
				.withMessageContaining("must not be negative");
			assertThatIllegalArgumentException().isThrownBy(() -> this.client.schedule(" ", "x", Duration.ZERO))
				.withMessageContaining("topic");
		});
	}

	@Test
	void aRequiresNewTransactionCommitsItsOwnChanges() {
		TransactionTemplate inner = new TransactionTemplate(this.transaction.getTransactionManager());
		inner.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		String[] ids = new String[2];
		this.transaction.executeWithoutResult((outer) -> {
			ids[0] = this.client.schedule("t", "outer", Duration.ofMinutes(1));
			inner.executeWithoutResult((status) -> ids[1] = this.client.schedule("t", "inner", Duration.ofMinutes(1)));
			assertThat(this.client.find("t", ids[1])).isPresent();
			assertThat(this.client.find("t", ids[0])).isEmpty();
			outer.setRollbackOnly();
		});
		assertThat(this.client.find("t", ids[0])).isEmpty();
		assertThat(this.client.find("t", ids[1])).isPresent();
	}

	/**
	 * A transaction manager with no resource: it only drives Spring's transaction
	 * synchronization.
	 */
	static class NoResourceTransactionManager extends AbstractPlatformTransactionManager {

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

}
