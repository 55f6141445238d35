package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.Ordered;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.redeq.Duplicate;
import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.Subscription;
import io.redeq.spring.boot.autoconfigure.endpoint.RedeqEndpointAutoConfiguration;
import io.redeq.spring.internal.endpoint.RedeqEndpoint;
import io.redeq.spring.internal.journal.JournalScenarios.Runs;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What a transaction changes reaches Redis exactly when the transaction committed, on
 * PostgreSQL: cancels and reschedules of jobs that existed before it survive a death
 * between the commit and the send; a transaction that does not carry the journal's
 * database (another resource's transaction manager, a read-only one) neither loses a
 * committed job nor sends a rolled-back one; the relay's grace period counts from the
 * commit; what an operator changes through the admin is journaled.
 */
@RedisTest
class JournalTransactionIntegrationTests {

	/** The relay's shortest grace period (twice the relay interval, at least 2 s). */
	private static final Duration GRACE = Duration.ofSeconds(2);

	@RegisterExtension
	static final PostgresJournal postgres = new PostgresJournal();

	private final RedisServer redis;

	JournalTransactionIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	private ApplicationContextRunner runner() {
		return postgres.runner(this.redis, "redeq.journal.relay-interval=1s", "redeq.consumer.poll-interval=100ms");
	}

	@Test
	void aCancelCommittedJustBeforeTheProcessDiedIsStillApplied() {
		runner().run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			client.schedule(Job.builder("tx.cancel").id("order-1").payload("x").delay(Duration.ofHours(1)).build());
			awaitRow(context, "tx.cancel", "order-1", JournalState.SCHEDULED);
			commitThenDie(context, () -> assertThat(client.cancel("tx.cancel", "order-1")).isTrue());
			assertThat(client.find("tx.cancel", "order-1")).isPresent();
			Awaitility.await()
				.atMost(JournalScenarios.TIMEOUT)
				.until(() -> client.find("tx.cancel", "order-1").isEmpty());
			awaitRow(context, "tx.cancel", "order-1", JournalState.CANCELLED);
		});
	}

	@Test
	void aRescheduleCommittedJustBeforeTheProcessDiedIsStillApplied() {
		runner().run((context) -> {
			Runs runs = JournalScenarios.subscribe(context, "tx.move");
			RedeqClient client = context.getBean(RedeqClient.class);
			client.schedule(Job.builder("tx.move").id("order-2").payload("x").delay(Duration.ofHours(1)).build());
			awaitRow(context, "tx.move", "order-2", JournalState.SCHEDULED);
			commitThenDie(context,
					() -> assertThat(client.reschedule("tx.move", "order-2", Duration.ofMillis(100))).isTrue());
			Awaitility.await().atMost(JournalScenarios.TIMEOUT).until(() -> runs.count("order-2") == 1);
			awaitRow(context, "tx.move", "order-2", JournalState.COMPLETED);
		});
	}

	/**
	 * A transaction open longer than the grace period: the relay, running right after the
	 * commit and before the send after commit, must leave the row to the committing
	 * instance (its age counts from the commit), so the send is not refused as a
	 * duplicate.
	 */
	@Test
	void theRelaysGracePeriodCountsFromTheCommit() {
		runner().run((context) -> {
			Runs runs = JournalScenarios.subscribe(context, "tx.long");
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			int[] relayedAtCommit = { -1 };
			JournalScenarios.transaction(context).executeWithoutResult((status) -> {
				// REJECT: a send after the relay's would fail the commit.
				client
					.schedule(Job.builder("tx.long").id("slow-tx").payload("x").onDuplicate(Duplicate.REJECT).build());
				long opened = System.currentTimeMillis();
				Awaitility.await()
					.atMost(JournalScenarios.TIMEOUT)
					.until(() -> System.currentTimeMillis() - opened > GRACE.toMillis() + 500);
				TransactionSynchronizationManager.registerSynchronization(new First() {

					@Override
					public void afterCommit() {
						try {
							relayedAtCommit[0] = journal.relayNow();
						}
						catch (SQLException ex) {
							throw new IllegalStateException(ex);
						}
					}

				});
			});
			assertThat(relayedAtCommit[0]).isZero();
			Awaitility.await().atMost(JournalScenarios.TIMEOUT).until(() -> runs.count("slow-tx") == 1);
			awaitRow(context, "tx.long", "slow-tx", JournalState.COMPLETED);
		});
	}

	@Test
	void underATransactionManagerWithoutTheJournalsDatabaseACommittedJobRunsAndARolledBackOneNever() {
		runner().run((context) -> {
			Runs runs = JournalScenarios.subscribe(context, "tx.other");
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			TransactionTemplate other = new TransactionTemplate(new OtherResourceTransactionManager());
			other.executeWithoutResult((status) -> {
				client.schedule(Job.builder("tx.other").id("rolled-back").payload("x").build());
				status.setRollbackOnly();
			});
			other.executeWithoutResult(
					(status) -> client.schedule(Job.builder("tx.other").id("committed").payload("x").build()));
			Awaitility.await().atMost(JournalScenarios.TIMEOUT).until(() -> runs.count("committed") == 1);
			awaitRow(context, "tx.other", "committed", JournalState.COMPLETED);
			// Past the grace period the relay would take a rolled-back row still
			// in the outbox.
			long now = System.currentTimeMillis();
			Awaitility.await()
				.atMost(JournalScenarios.TIMEOUT)
				.until(() -> System.currentTimeMillis() - now > GRACE.toMillis() + 500);
			journal.relayNow();
			assertThat(client.find("tx.other", "rolled-back")).isEmpty();
			assertThat(runs.count("rolled-back")).isZero();
			// Never written: the rows of such a transaction are written just
			// before it commits.
			assertThat(JournalScenarios.row(context, "tx.other", "rolled-back")).isEmpty();
		});
	}

	/**
	 * Such a transaction can still roll back after its rows were written (its own commit
	 * fails): the rows are cancelled then, and the relay sends nothing.
	 */
	@Test
	void underATransactionManagerWithoutTheJournalsDatabaseAFailedCommitSendsNothing() {
		runner().run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			TransactionTemplate failing = new TransactionTemplate(new OtherResourceTransactionManager(true));
			assertThatIllegalStateException().isThrownBy(() -> failing.executeWithoutResult(
					(status) -> client.schedule(Job.builder("tx.failed").id("commit-failed").payload("x").build())));
			assertThat(JournalScenarios.row(context, "tx.failed", "commit-failed").map(JournalScenarios.Row::state))
				.contains(JournalState.CANCELLED);
			long now = System.currentTimeMillis();
			Awaitility.await()
				.atMost(JournalScenarios.TIMEOUT)
				.until(() -> System.currentTimeMillis() - now > GRACE.toMillis() + 500);
			assertThat(journal.relayNow()).isZero();
			assertThat(client.find("tx.failed", "commit-failed")).isEmpty();
		});
	}

	@Test
	void aJobScheduledInAReadOnlyTransactionRuns() {
		runner().run((context) -> {
			Runs runs = JournalScenarios.subscribe(context, "tx.readonly");
			RedeqClient client = context.getBean(RedeqClient.class);
			TransactionTemplate readOnly = JournalScenarios.transaction(context);
			readOnly.setReadOnly(true);
			readOnly.executeWithoutResult(
					(status) -> client.schedule(Job.builder("tx.readonly").id("ro").payload("x").build()));
			Awaitility.await().atMost(JournalScenarios.TIMEOUT).until(() -> runs.count("ro") == 1);
			awaitRow(context, "tx.readonly", "ro", JournalState.COMPLETED);
		});
	}

	@Test
	void withoutAnActualTransactionAJobIsSentAtOnce() {
		runner().run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			TransactionTemplate supports = JournalScenarios.transaction(context);
			supports.setPropagationBehavior(TransactionDefinition.PROPAGATION_SUPPORTS);
			supports.executeWithoutResult((status) -> {
				client.schedule(Job.builder("tx.supports").id("s").payload("x").delay(Duration.ofHours(1)).build());
				assertThat(client.find("tx.supports", "s")).isPresent();
			});
			awaitRow(context, "tx.supports", "s", JournalState.SCHEDULED);
		});
	}

	@Test
	void whatAnOperatorChangesThroughTheAdminIsJournaled() {
		runner().run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqAdmin admin = context.getBean(RedeqAdmin.class);
			client.schedule(Job.builder("ops").id("promoted").payload("x").delay(Duration.ofHours(1)).build());
			awaitRow(context, "ops", "promoted", JournalState.SCHEDULED);
			long before = System.currentTimeMillis();
			assertThat(admin.promote("ops", "promoted")).isTrue();
			assertThat(dueAt(context, "ops", "promoted")).isBetween(before, System.currentTimeMillis());

			Subscription failing = context.getBean(Redeq.class)
				.subscribe("ops.dead", String.class, (payload, delivery) -> {
					throw new IllegalStateException("always fails");
				});
			for (String id : List.of("dead-1", "dead-2", "dead-3")) {
				client.schedule(Job.builder("ops.dead").id(id).payload("x").maxAttempts(1).build());
			}
			for (String id : List.of("dead-1", "dead-2", "dead-3")) {
				awaitRow(context, "ops.dead", id, JournalState.DEAD);
			}
			// No consumer any more: requeued jobs wait, so their rows can be read as the
			// requeue left them.
			failing.close();
			assertThat(admin.requeueDead("ops.dead", "dead-1")).isTrue();
			assertThat(JournalScenarios.row(context, "ops.dead", "dead-1").get().state())
				.isEqualTo(JournalState.SCHEDULED);
			assertThat(JournalScenarios.row(context, "ops.dead", "dead-1").get().finishedAt()).isNull();
			assertThat(admin.requeueAllDead("ops.dead")).isEqualTo(2);
			assertThat(JournalScenarios.row(context, "ops.dead", "dead-2").get().state())
				.isEqualTo(JournalState.SCHEDULED);
			assertThat(JournalScenarios.row(context, "ops.dead", "dead-3").get().state())
				.isEqualTo(JournalState.SCHEDULED);
		});
	}

	@Test
	void theEndpointsOperationsGoThroughTheJournalingAdmin() {
		runner().withConfiguration(AutoConfigurations.of(RedeqEndpointAutoConfiguration.class))
			.withPropertyValues("redeq.consumer.enabled=false", "management.endpoints.web.exposure.include=redeq")
			.run((context) -> {
				RedeqClient client = context.getBean(RedeqClient.class);
				client.schedule(Job.builder("ops.endpoint").id("e").payload("x").delay(Duration.ofHours(1)).build());
				awaitRow(context, "ops.endpoint", "e", JournalState.SCHEDULED);
				long before = System.currentTimeMillis();
				context.getBean(RedeqEndpoint.class).deadJobAction("ops.endpoint", "e", "promote");
				assertThat(dueAt(context, "ops.endpoint", "e")).isBetween(before, System.currentTimeMillis());
			});
	}

	/**
	 * The transaction commits, then the process "dies": a synchronization ordered first
	 * throws in {@code afterCommit}, so redeq's send after commit never runs, as when the
	 * process is killed right after the commit.
	 */
	private static void commitThenDie(AssertableApplicationContext context, Runnable work) {
		try {
			JournalScenarios.transaction(context).executeWithoutResult((status) -> {
				work.run();
				TransactionSynchronizationManager.registerSynchronization(new First() {

					@Override
					public void afterCommit() {
						throw new ProcessDied();
					}

				});
			});
		}
		catch (ProcessDied expected) {
			return;
		}
		throw new AssertionError("the simulated death after commit did not happen");
	}

	private static long dueAt(AssertableApplicationContext context, String topic, String id) throws SQLException {
		try (Connection connection = context.getBean(DataSource.class).getConnection();
				PreparedStatement select = connection
					.prepareStatement("SELECT due_at FROM redeq_job WHERE topic = ? AND id = ?")) {
			select.setString(1, topic);
			select.setString(2, id);
			try (ResultSet rows = select.executeQuery()) {
				assertThat(rows.next()).isTrue();
				return rows.getLong(1);
			}
		}
	}

	private static void awaitRow(AssertableApplicationContext context, String topic, String id, JournalState state) {
		Awaitility.await()
			.atMost(JournalScenarios.TIMEOUT)
			.until(() -> JournalScenarios.row(context, topic, id).map(JournalScenarios.Row::state).orElse(null),
					(s) -> s == state);
	}

	/** A synchronization that runs before redeq's. */
	private abstract static class First implements TransactionSynchronization {

		@Override
		public int getOrder() {
			return Ordered.HIGHEST_PRECEDENCE;
		}

	}

	private static final class ProcessDied extends RuntimeException {

	}

	/**
	 * A transaction manager over some other resource (as Kafka's is): it binds nothing of
	 * the journal's database.
	 */
	private static final class OtherResourceTransactionManager extends AbstractPlatformTransactionManager {

		private final boolean commitFails;

		OtherResourceTransactionManager() {
			this(false);
		}

		OtherResourceTransactionManager(boolean commitFails) {
			this.commitFails = commitFails;
		}

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
			if (this.commitFails) {
				throw new IllegalStateException("the other resource refused to commit");
			}
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

}
