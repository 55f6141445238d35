package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.Duplicate;
import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.RedeqClient;
import io.redeq.SubscriptionOptions;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqJournalAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.health.RedeqHealthContributorAutoConfiguration;
import io.redeq.spring.internal.health.RedeqJournalHealthIndicator;
import io.redeq.spring.internal.journal.JournalScenarios.Row;
import io.redeq.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The journal's writer when events go wrong, against a real database server: an event the
 * database refuses, outcomes delivered out of order by two writers (as two instances
 * would), an update whose row comes late or never, and a job Redis buried after its
 * instance died. The subclasses name the database.
 */
abstract class JournalWriterScenarios {

	static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final RedisServer redis;

	JournalWriterScenarios(RedisServer redis) {
		this.redis = redis;
	}

	abstract String jdbcUrl();

	abstract String user();

	/**
	 * Makes the database refuse {@link #refusedError()} as a job's last error, the way it
	 * would in production; returns what undoes it.
	 */
	abstract AutoCloseable refuseErrors(DataSource dataSource) throws SQLException;

	/** A handler's error text this database refuses to store. */
	abstract String refusedError();

	ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DataSourceAutoConfiguration.class,
							DataSourceTransactionManagerAutoConfiguration.class, RedeqAutoConfiguration.class,
							RedeqJournalAutoConfiguration.class, RedeqHealthContributorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.datasource.url=" + jdbcUrl(),
					"spring.datasource.username=" + user(), "spring.datasource.password=",
					"spring.datasource.hikari.connection-timeout=2000", "redeq.journal.enabled=true",
					"redeq.journal.initialize-schema=always", "redeq.journal.check-interval=1s",
					"redeq.consumer.poll-interval=100ms");
	}

	/**
	 * One event the database refuses (an error text it cannot store) is set aside: the
	 * events before and after it, in its batch and in later ones, are written, the writer
	 * is not stuck, and the refusal shows in the log, the health and a meter.
	 */
	@Test
	void anEventTheDatabaseRefusesIsSetAsideAndTheOthersAreWritten() {
		runner().withPropertyValues("redeq.consumer.enabled=false").run((context) -> {
			DataSource dataSource = context.getBean(DataSource.class);
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			JournalWriter writer = journal.writer();
			long t = System.currentTimeMillis();
			try (AutoCloseable undo = refuseErrors(dataSource)) {
				for (String id : new String[] { "before", "refused", "after" }) {
					writer.offer(new JournalEvent.Scheduled(Job.builder("poison").id(id).build(), t, t));
				}
				writer
					.offer(new JournalEvent.Changed("poison", "before", JournalState.COMPLETED, 1, null, null, t + 1));
				writer.offer(new JournalEvent.Changed("poison", "refused", JournalState.RETRYING, 1, t + 1000,
						refusedError(), t + 1));
				writer.offer(new JournalEvent.Changed("poison", "after", JournalState.COMPLETED, 1, null, null, t + 1));
				assertThat(writer.flush(TIMEOUT)).as("the writer catches up").isTrue();
				assertThat(JournalScenarios.row(context, "poison", "before").map(Row::state))
					.contains(JournalState.COMPLETED);
				assertThat(JournalScenarios.row(context, "poison", "after").map(Row::state))
					.contains(JournalState.COMPLETED);
				assertThat(JournalScenarios.row(context, "poison", "refused").map(Row::state))
					.contains(JournalState.SCHEDULED);
				// Later batches are written too.
				writer.offer(new JournalEvent.Scheduled(Job.builder("poison").id("later").build(), t, t));
				writer.offer(new JournalEvent.Changed("poison", "later", JournalState.DEAD, 1, null, "gone", t + 2));
				assertThat(writer.flush(TIMEOUT)).isTrue();
				assertThat(JournalScenarios.row(context, "poison", "later").map(Row::state))
					.contains(JournalState.DEAD);
			}
			assertThat(writer.rejected()).isEqualTo(1);
			assertThat(writer.lastError()).isNull();
			assertThat(writer.lastRejected()).contains("RETRYING", "'refused'", "'poison'");
			Map<String, Object> details = context.getBean(RedeqJournalHealthIndicator.class).health().getDetails();
			assertThat(details).containsEntry("rejected", 1L).containsKey("lastRejected");
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			new JournalMeterBinder(journal).bindTo(registry);
			assertThat(registry.get("redeq.journal.rejected").functionCounter().count()).isEqualTo(1.0);
		});
	}

	/**
	 * Two writers on one database, as two instances: instance A's outcomes of attempt 1
	 * arrive after instance B's of attempt 2, and after a cancel. The row follows the
	 * attempts: a finished row stays finished, a later attempt's state stays.
	 */
	@Test
	void lateOutcomesOfAnEarlierAttemptNeverReopenARow() {
		runner().withPropertyValues("redeq.consumer.enabled=false").run((context) -> {
			JournalWriter a = writer(context, JournalWriter.DEFAULT_ROW_WAIT);
			JournalWriter b = writer(context, JournalWriter.DEFAULT_ROW_WAIT);
			try {
				long t = System.currentTimeMillis();
				for (String id : new String[] { "completed", "running", "cancelled" }) {
					a.offer(new JournalEvent.Scheduled(Job.builder("late").id(id).build(), t, t));
					a.offer(new JournalEvent.Changed("late", id, JournalState.RUNNING, 1, null, null, t + 1));
				}
				assertThat(a.flush(TIMEOUT)).isTrue();
				// B ran attempt 2 of the first to its end, started attempt 2 of the
				// second, and the third was cancelled.
				b.offer(new JournalEvent.Changed("late", "completed", JournalState.RUNNING, 2, null, null, t + 10));
				b.offer(new JournalEvent.Changed("late", "completed", JournalState.COMPLETED, 2, null, null, t + 11));
				b.offer(new JournalEvent.Changed("late", "running", JournalState.RUNNING, 2, null, null, t + 10));
				b.offer(new JournalEvent.Changed("late", "cancelled", JournalState.CANCELLED, null, null, null,
						t + 10));
				assertThat(b.flush(TIMEOUT)).isTrue();
				// A's news of attempt 1, late (and with a clock far ahead:
				// clocks decide nothing).
				for (String id : new String[] { "completed", "running", "cancelled" }) {
					a.offer(new JournalEvent.Changed("late", id, JournalState.RETRYING, 1, t + 1000, "late failure",
							t + 100_000));
					a.offer(new JournalEvent.Changed("late", id, JournalState.DEAD, 1, null, "late death",
							t + 100_000));
				}
				assertThat(a.flush(TIMEOUT)).isTrue();
				assertThat(JournalScenarios.row(context, "late", "completed").get()).satisfies((row) -> {
					assertThat(row.state()).isEqualTo(JournalState.COMPLETED);
					assertThat(row.attempts()).isEqualTo(2);
					assertThat(row.finishedAt()).isEqualTo(t + 11);
					assertThat(row.lastError()).isNull();
				});
				assertThat(JournalScenarios.row(context, "late", "running").get())
					.extracting(Row::state, Row::attempts, Row::lastError)
					.containsExactly(JournalState.RUNNING, 2, null);
				assertThat(JournalScenarios.row(context, "late", "cancelled").get())
					.extracting(Row::state, Row::lastError)
					.containsExactly(JournalState.CANCELLED, null);
				// The final outcome of attempt 2 after its failure of the same attempt
				// (the reconciler's DEAD after a RETRYING): written.
				b.offer(new JournalEvent.Changed("late", "running", JournalState.RETRYING, 2, t + 50, "boom", t + 20));
				b.offer(new JournalEvent.Changed("late", "running", JournalState.DEAD, 2, null, "used up", t + 21));
				assertThat(b.flush(TIMEOUT)).isTrue();
				assertThat(JournalScenarios.row(context, "late", "running").get())
					.extracting(Row::state, Row::attempts, Row::lastError)
					.containsExactly(JournalState.DEAD, 2, "used up");
				assertThat(a.unmatched() + b.unmatched()).isZero();
			}
			finally {
				a.stop(TIMEOUT);
				b.stop(TIMEOUT);
			}
		});
	}

	/**
	 * A cancel of a job that had already ended DEAD (Redis cancels a dead job too) finds
	 * its row finished and waits, in case a new job under the id is on its way; when the
	 * id is then reused by a job scheduled after the cancel, the cancel must not finish
	 * that job's row (found by {@code JournalModelIntegrationTests}: the new job ran and
	 * completed, its row read CANCELLED).
	 */
	@Test
	void aCancelOfAFinishedJobNeverFinishesTheNextJobUnderItsId() {
		runner().withPropertyValues("redeq.consumer.enabled=false").run((context) -> {
			JournalWriter a = writer(context, Duration.ofSeconds(3));
			JournalWriter b = writer(context, Duration.ofSeconds(3));
			try {
				long t = System.currentTimeMillis();
				a.offer(new JournalEvent.Scheduled(Job.builder("reuse").id("r").build(), t, t));
				a.offer(new JournalEvent.Changed("reuse", "r", JournalState.DEAD, 1, null, "failed", t + 1));
				assertThat(a.flush(TIMEOUT)).isTrue();
				a.offer(new JournalEvent.Changed("reuse", "r", JournalState.CANCELLED, null, null, null, t + 2));
				assertThat(a.flush(TIMEOUT)).isTrue();
				b.offer(new JournalEvent.Scheduled(Job.builder("reuse").id("r").build(), t + 3, t + 3));
				assertThat(b.flush(TIMEOUT)).isTrue();
				// The waiting cancel is tried again after 0.1, 0.2, 0.4... s.
				Awaitility.await()
					.during(Duration.ofMillis(1500))
					.atMost(Duration.ofSeconds(5))
					.until(() -> JournalScenarios.row(context, "reuse", "r").map(Row::state).orElse(null),
							(state) -> state == JournalState.SCHEDULED);
			}
			finally {
				a.stop(TIMEOUT);
				b.stop(TIMEOUT);
			}
		});
	}

	/**
	 * Two instances schedule one id a millisecond apart and their writers write in the
	 * other order: the row keeps the version Redis stored last, and that version's
	 * outcome finishes it. An outcome of an older version never finishes an outbox row of
	 * a newer one.
	 */
	@Test
	void theVersionRedisStoredLastKeepsTheRowWhateverWriterComesLast() {
		runner().withPropertyValues("redeq.consumer.enabled=false").run((context) -> {
			JournalWriter a = writer(context, Duration.ofSeconds(3));
			JournalWriter b = writer(context, Duration.ofSeconds(3));
			try {
				long t = System.currentTimeMillis();
				b.offer(scheduled("versions", "twice", "\"second\"", "v2", t + 1));
				assertThat(b.flush(TIMEOUT)).isTrue();
				a.offer(scheduled("versions", "twice", "\"first\"", "v1", t));
				assertThat(a.flush(TIMEOUT)).isTrue();
				assertThat(payload(context, "versions", "twice")).isEqualTo("\"second\"");
				b.offer(new JournalEvent.Changed("versions", "twice", JournalState.COMPLETED, 1, null, null, t + 5,
						"v2"));
				assertThat(b.flush(TIMEOUT)).isTrue();
				assertThat(JournalScenarios.row(context, "versions", "twice").map(Row::state))
					.contains(JournalState.COMPLETED);

				RedeqJournal journal = context.getBean(RedeqJournal.class);
				a.offer(scheduled("versions", "replaced", "\"old\"", "old", t));
				assertThat(a.flush(TIMEOUT)).isTrue();
				JournalScenarios.transaction(context)
					.executeWithoutResult((status) -> journal.outbox()
						.write(List.of(Job.builder("versions").id("replaced").payload("new").build())));
				a.offer(new JournalEvent.Changed("versions", "replaced", JournalState.COMPLETED, 1, null, null, t + 5,
						"old"));
				assertThat(a.flush(TIMEOUT)).isTrue();
				assertThat(JournalScenarios.row(context, "versions", "replaced").map(Row::state))
					.contains(JournalState.OUTBOX);
				assertThat(payload(context, "versions", "replaced")).isEqualTo("\"new\"");
			}
			finally {
				a.stop(TIMEOUT);
				b.stop(TIMEOUT);
			}
		});
	}

	private static JournalEvent.Scheduled scheduled(String topic, String id, String payload, String version,
			long acceptedAt) {
		return new JournalEvent.Scheduled(new JournalRow(topic, id, payload, acceptedAt + 60_000, 0, null, null, 0,
				Duplicate.REPLACE, null, version, acceptedAt), acceptedAt);
	}

	private static String payload(AssertableApplicationContext context, String topic, String id) throws SQLException {
		try (Connection connection = context.getBean(DataSource.class).getConnection();
				PreparedStatement select = connection
					.prepareStatement("SELECT payload FROM redeq_job WHERE topic = ? AND id = ?")) {
			select.setString(1, topic);
			select.setString(2, id);
			try (ResultSet rows = select.executeQuery()) {
				assertThat(rows.next()).as("a row for %s/%s", topic, id).isTrue();
				return rows.getString(1);
			}
		}
	}

	/**
	 * An outcome whose row another instance writes only after several of this writer's
	 * batches (its writer lags) still lands; one whose row never comes is given up after
	 * the row wait and counted.
	 */
	@Test
	void anUpdateWaitsForItsRowAndIsCountedWhenItNeverComes() {
		runner().withPropertyValues("redeq.consumer.enabled=false").run((context) -> {
			JournalWriter worker = writer(context, Duration.ofSeconds(3));
			JournalWriter caller = writer(context, Duration.ofSeconds(3));
			try {
				long t = System.currentTimeMillis();
				worker
					.offer(new JournalEvent.Changed("wait", "slow-row", JournalState.COMPLETED, 1, null, null, t + 5));
				worker.offer(new JournalEvent.Changed("wait", "no-row", JournalState.DEAD, 1, null, "gone", t + 5));
				// Five more batches of the worker's writer before the row is written.
				for (int i = 0; i < 5; i++) {
					worker.offer(new JournalEvent.Scheduled(Job.builder("wait").id("other-" + i).build(), t, t));
					assertThat(worker.flush(TIMEOUT)).isTrue();
				}
				caller.offer(new JournalEvent.Scheduled(Job.builder("wait").id("slow-row").build(), t, t));
				assertThat(caller.flush(TIMEOUT)).isTrue();
				Awaitility.await()
					.atMost(TIMEOUT)
					.until(() -> JournalScenarios.row(context, "wait", "slow-row").map(Row::state).orElse(null),
							(state) -> state == JournalState.COMPLETED);
				Awaitility.await().atMost(TIMEOUT).until(worker::unmatched, (count) -> count == 1);
				assertThat(JournalScenarios.row(context, "wait", "no-row")).isEmpty();
			}
			finally {
				worker.stop(TIMEOUT);
				caller.stop(TIMEOUT);
			}
		});
	}

	/**
	 * A job whose handler hangs past its lease on an instance that is then shut down (the
	 * handler ignores its interrupt: the job stays IN_FLIGHT, as when the instance died),
	 * with one attempt allowed: another instance's claim buries it inside Redis, with no
	 * listener called anywhere. The journal finds it and ends its row DEAD.
	 */
	@Test
	void aJobBuriedInRedisAfterItsInstanceDiedEndsDead() {
		SubscriptionOptions once = SubscriptionOptions.builder()
			.maxAttempts(1)
			.timeout(Duration.ofMinutes(1))
			.lease(Duration.ofSeconds(1))
			.build();
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger secondRuns = new AtomicInteger();
		try {
			runner().withPropertyValues("redeq.shutdown-timeout=200ms").run((dying) -> {
				dying.getBean(Redeq.class).subscribe("buried", String.class, (payload, delivery) -> {
					// Hangs, ignoring interrupts, until the test ends (bounded).
					long until = System.nanoTime() + TIMEOUT.toNanos();
					while (release.getCount() > 0 && System.nanoTime() < until) {
						try {
							release.await(100, java.util.concurrent.TimeUnit.MILLISECONDS);
						}
						catch (InterruptedException ex) {
							// ignored, as a hung handler would
						}
					}
				}, once);
				dying.getBean(RedeqClient.class).schedule(Job.builder("buried").id("hung").payload("x").build());
				Awaitility.await()
					.atMost(TIMEOUT)
					.until(() -> JournalScenarios.row(dying, "buried", "hung").map(Row::state).orElse(null),
							(state) -> state == JournalState.RUNNING);
			});
			runner().run((survivor) -> {
				survivor.getBean(Redeq.class)
					.subscribe("buried", String.class, (payload, delivery) -> secondRuns.incrementAndGet(), once);
				Awaitility.await()
					.atMost(TIMEOUT)
					.until(() -> JournalScenarios.row(survivor, "buried", "hung").map(Row::state).orElse(null),
							(state) -> state == JournalState.DEAD);
				assertThat(JournalScenarios.row(survivor, "buried", "hung").get()).satisfies((row) -> {
					assertThat(row.attempts()).isEqualTo(1);
					assertThat(row.lastError()).contains("lease");
					assertThat(row.finishedAt()).isNotNull();
				});
				assertThat(secondRuns).hasValue(0);
				assertThat(survivor.getBean(RedeqJournal.class).reconciled()).isEqualTo(1);
			});
		}
		finally {
			release.countDown();
		}
	}

	private static JournalWriter writer(AssertableApplicationContext context, Duration rowWait) {
		JournalWriter writer = new JournalWriter(context.getBean(DataSource.class),
				context.getBean(JournalDialect.class), "redeq_job", 100, 10, rowWait);
		writer.start();
		return writer;
	}

	static void execute(DataSource dataSource, String sql) throws SQLException {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

}
