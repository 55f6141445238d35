package io.redeq.spring.internal.journal;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.redeq.Job;
import io.redeq.JobState;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bulk removal with the journal on, on PostgreSQL: {@code cancelAll} inside a transaction
 * is applied after the commit and recorded in the outbox (so it holds even when the
 * process dies right after the commit), sends nothing when the transaction rolls back,
 * and every job it cancelled ends CANCELLED in the journal; an operator's purge of
 * DELAYED or READY jobs journals each deleted job as CANCELLED, so a recovery from the
 * journal never sends them again.
 */
@RedisTest
class JournalBulkRemovalIntegrationTests {

	@RegisterExtension
	static final PostgresJournal postgres = new PostgresJournal();

	private final RedisServer redis;

	JournalBulkRemovalIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	private ApplicationContextRunner runner() {
		return postgres.runner(this.redis, "redeq.journal.relay-interval=1s", "redeq.consumer.enabled=false");
	}

	@Test
	void cancelAllInATransactionThatRollsBackCancelsNothing() {
		runner().run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			List<String> ids = schedule(context, client, "bulk.rollback", 5);

			JournalScenarios.transaction(context).executeWithoutResult((status) -> {
				assertThat(client.cancelAll("bulk.rollback", withUnknown(ids))).isEqualTo(5);
				status.setRollbackOnly();
			});

			for (String id : ids) {
				assertThat(client.find("bulk.rollback", id)).as(id).isPresent();
				assertThat(state(context, "bulk.rollback", id)).as(id).isEqualTo(JournalState.SCHEDULED);
			}
		});
	}

	@Test
	void cancelAllCommittedInATransactionCancelsAndJournalsEveryWaitingJob() {
		runner().run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			List<String> ids = schedule(context, client, "bulk.commit", 5);

			long cancelled = JournalScenarios.transaction(context).execute((status) -> {
				client.schedule(Job.builder("bulk.commit").id("here").payload("x").delay(Duration.ofHours(1)).build());
				List<String> all = new ArrayList<>(withUnknown(ids));
				all.add("here");
				long count = client.cancelAll("bulk.commit", all);
				// Before the commit, Redis still holds them.
				assertThat(client.find("bulk.commit", ids.get(0))).isPresent();
				return count;
			});

			assertThat(cancelled).isEqualTo(6);
			for (String id : ids) {
				assertThat(client.find("bulk.commit", id)).as(id).isEmpty();
			}
			awaitRows(context, "bulk.commit", ids, JournalState.CANCELLED);
			assertThat(client.find("bulk.commit", "here")).isEmpty();
			assertThat(JournalScenarios.row(context, "bulk.commit", "here")).isEmpty();
		});
	}

	@Test
	void cancelAllCommittedJustBeforeTheProcessDiedIsStillApplied() {
		runner().run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			List<String> ids = schedule(context, client, "bulk.died", 3);

			commitThenDie(context, () -> assertThat(client.cancelAll("bulk.died", ids)).isEqualTo(3));

			assertThat(client.find("bulk.died", ids.get(0))).as("not sent after commit").isPresent();
			for (String id : ids) {
				Awaitility.await().atMost(JournalScenarios.TIMEOUT).until(() -> client.find("bulk.died", id).isEmpty());
				awaitRow(context, "bulk.died", id, JournalState.CANCELLED);
			}
		});
	}

	@Test
	void cancelAllOutsideATransactionJournalsTheJobsItCancelled() {
		runner().run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			List<String> ids = schedule(context, client, "bulk.now", 4);

			assertThat(client.cancelAll("bulk.now", withUnknown(ids.subList(0, 3)))).isEqualTo(3);

			awaitRows(context, "bulk.now", ids.subList(0, 3), JournalState.CANCELLED);
			assertThat(state(context, "bulk.now", ids.get(3))).isEqualTo(JournalState.SCHEDULED);
		});
	}

	@Test
	void aPurgeOfWaitingJobsJournalsEachAsCancelled() {
		runner().run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqAdmin admin = context.getBean(RedeqAdmin.class);
			List<String> ids = schedule(context, client, "bulk.purge", 30);
			client.schedule(Job.builder("bulk.purge").id("due").payload("x").build());
			awaitRow(context, "bulk.purge", "due", JournalState.SCHEDULED);
			Awaitility.await().atMost(JournalScenarios.TIMEOUT).until(() -> admin.stats("bulk.purge").ready() == 1);

			assertThat(admin.purge("bulk.purge", JobState.DELAYED)).isEqualTo(30);
			awaitRows(context, "bulk.purge", ids, JournalState.CANCELLED);
			assertThat(state(context, "bulk.purge", "due")).isEqualTo(JournalState.SCHEDULED);
			assertThat(admin.purge("bulk.purge", JobState.READY)).isOne();
			awaitRow(context, "bulk.purge", "due", JournalState.CANCELLED);
			assertThat(admin.recoverFromJournal()).as("nothing pending to send again").isZero();
			assertThat(admin.stats("bulk.purge").pending()).isZero();
		});
	}

	private static List<String> schedule(AssertableApplicationContext context, RedeqClient client, String topic,
			int count) {
		List<String> ids = IntStream.range(0, count).mapToObj((i) -> "job-" + i).toList();
		client.scheduleAll(ids.stream()
			.map((id) -> Job.builder(topic).id(id).payload("x").delay(Duration.ofHours(1)).build())
			.toList());
		awaitRows(context, topic, ids, JournalState.SCHEDULED);
		return ids;
	}

	private static List<String> withUnknown(List<String> ids) {
		List<String> all = new ArrayList<>(ids);
		all.add("unknown");
		return all;
	}

	private static JournalState state(AssertableApplicationContext context, String topic, String id)
			throws SQLException {
		return JournalScenarios.row(context, topic, id).map(JournalScenarios.Row::state).orElse(null);
	}

	private static void awaitRows(AssertableApplicationContext context, String topic, List<String> ids,
			JournalState state) {
		Awaitility.await().atMost(JournalScenarios.TIMEOUT).untilAsserted(() -> {
			for (String id : ids) {
				assertThat(state(context, topic, id)).as(id).isEqualTo(state);
			}
		});
	}

	private static void awaitRow(AssertableApplicationContext context, String topic, String id, JournalState state) {
		Awaitility.await()
			.atMost(JournalScenarios.TIMEOUT)
			.until(() -> JournalScenarios.row(context, topic, id).map(JournalScenarios.Row::state).orElse(null),
					(s) -> s == state);
	}

	/**
	 * The transaction commits, then the process "dies": a synchronization ordered first
	 * throws in {@code afterCommit}, so redeq's send after commit never runs.
	 */
	private static void commitThenDie(AssertableApplicationContext context, Runnable work) {
		try {
			JournalScenarios.transaction(context).executeWithoutResult((status) -> {
				work.run();
				TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

					@Override
					public int getOrder() {
						return Ordered.HIGHEST_PRECEDENCE;
					}

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

	private static final class ProcessDied extends RuntimeException {

	}

}
