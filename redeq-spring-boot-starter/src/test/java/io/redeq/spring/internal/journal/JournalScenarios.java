package io.redeq.spring.internal.journal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import javax.sql.DataSource;

import com.fasterxml.jackson.annotation.JsonValue;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.redeq.Duplicate;
import io.redeq.DuplicateJobException;
import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.PolledJob;
import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.SubscriptionOptions;
import io.redeq.TopicStats;
import io.redeq.internal.redis.KeySpace;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqBuilderCustomizer;
import io.redeq.spring.boot.autoconfigure.RedeqJournalAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.health.RedeqHealthContributorAutoConfiguration;
import io.redeq.spring.internal.health.RedeqJournalHealthIndicator;
import io.redeq.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The journal's promises, against a real database server and a real redis-server: the
 * subclasses name the database. Each test runs a full application context (journal on,
 * schema created with {@code always}) and its own topic.
 */
abstract class JournalScenarios {

	static final Duration TIMEOUT = Duration.ofSeconds(60);

	/**
	 * How long the database is away in the outage scenario: many of the journal writer's
	 * failed writes, with jobs scheduled and run all the while.
	 */
	static final Duration DATABASE_DOWN = Duration.ofSeconds(30);

	private final RedisServer redis;

	JournalScenarios(RedisServer redis) {
		this.redis = redis;
	}

	/** The database's JDBC URL. */
	abstract String jdbcUrl();

	/** The user to connect as, without a password. */
	abstract String user();

	/** Stops the database server, keeping its data. */
	abstract void stopDatabase();

	/** Starts the database server again. */
	abstract void startDatabase();

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

	@Test
	void aJobScheduledInARolledBackTransactionNeverRuns() {
		runner().run((context) -> {
			Runs runs = subscribe(context, "rollback");
			RedeqClient client = context.getBean(RedeqClient.class);
			TransactionTemplate transaction = transaction(context);
			transaction.executeWithoutResult((status) -> {
				client.schedule(Job.builder("rollback").id("rolled-back").payload("x").build());
				status.setRollbackOnly();
			});
			transaction.executeWithoutResult(
					(status) -> client.schedule(Job.builder("rollback").id("committed").payload("x").build()));
			Awaitility.await().atMost(TIMEOUT).until(() -> runs.count("committed") == 1);
			// The committed job was scheduled after the rolled-back one and has run: the
			// rolled-back one would have run by now, and it is nowhere.
			assertThat(runs.count("rolled-back")).isZero();
			assertThat(client.find("rollback", "rolled-back")).isEmpty();
			assertThat(row(context, "rollback", "rolled-back")).isEmpty();
			Awaitility.await()
				.atMost(TIMEOUT)
				.until(() -> row(context, "rollback", "committed").map(Row::state).orElse(null),
						(state) -> state == JournalState.COMPLETED);
		});
	}

	@Test
	void eachStepOfAJobsLifeIsJournaled() {
		runner().run((context) -> {
			AtomicInteger failures = new AtomicInteger();
			Runs runs = subscribe(context, "life", (delivery) -> {
				if (delivery.equals("fails-once") && failures.getAndIncrement() == 0) {
					throw new IllegalStateException("first attempt fails");
				}
			});
			RedeqClient client = context.getBean(RedeqClient.class);
			client.schedule(Job.builder("life").id("fails-once").payload("x").build());
			client.schedule(Job.builder("life").id("cancelled").payload("x").delay(Duration.ofHours(1)).build());
			Awaitility.await().atMost(TIMEOUT).until(() -> row(context, "life", "cancelled").isPresent());
			assertThat(row(context, "life", "cancelled").get().state()).isEqualTo(JournalState.SCHEDULED);
			assertThat(client.cancel("life", "cancelled")).isTrue();
			Awaitility.await().atMost(TIMEOUT).until(() -> runs.count("fails-once") == 1);
			Awaitility.await()
				.atMost(TIMEOUT)
				.until(() -> row(context, "life", "fails-once").map(Row::state).orElse(null),
						(state) -> state == JournalState.COMPLETED);
			Row done = row(context, "life", "fails-once").get();
			assertThat(done.attempts()).isEqualTo(2);
			assertThat(done.lastError()).contains("first attempt fails");
			assertThat(done.finishedAt()).isNotNull();
			Awaitility.await()
				.atMost(TIMEOUT)
				.until(() -> row(context, "life", "cancelled").map(Row::state).orElse(null),
						(state) -> state == JournalState.CANCELLED);
		});
	}

	/**
	 * A running attempt shows in the journal while its handler runs (the handlers below
	 * block on latches until the row says so): attempt 1 of a job that then completes;
	 * attempt 2 of a job whose first attempt failed.
	 */
	@Test
	void eachAttemptIsJournaledAsRunningWhileItsHandlerRuns() {
		runner().run((context) -> {
			CountDownLatch firstRunMayEnd = new CountDownLatch(1);
			CountDownLatch secondAttemptMayEnd = new CountDownLatch(1);
			context.getBean(Redeq.class).subscribe("running", String.class, (payload, delivery) -> {
				if (delivery.id().equals("completes")) {
					awaitRelease(firstRunMayEnd);
				}
				else if (delivery.attempt() == 1) {
					throw new IllegalStateException("first attempt fails");
				}
				else {
					awaitRelease(secondAttemptMayEnd);
				}
			}, SubscriptionOptions.builder().concurrency(2).build());
			RedeqClient client = context.getBean(RedeqClient.class);
			try {
				client.schedule(Job.builder("running").id("completes").payload("x").build());
				Awaitility.await()
					.atMost(TIMEOUT)
					.until(() -> row(context, "running", "completes").orElse(null),
							(row) -> row != null && row.state() == JournalState.RUNNING);
				Row running = row(context, "running", "completes").get();
				assertThat(running.attempts()).isEqualTo(1);
				assertThat(running.finishedAt()).isNull();
				firstRunMayEnd.countDown();
				Awaitility.await()
					.atMost(TIMEOUT)
					.until(() -> row(context, "running", "completes").map(Row::state).orElse(null),
							(state) -> state == JournalState.COMPLETED);
				assertThat(row(context, "running", "completes").get().attempts()).isEqualTo(1);

				client.schedule(Job.builder("running").id("fails-once").payload("x").build());
				Awaitility.await()
					.atMost(TIMEOUT)
					.until(() -> row(context, "running", "fails-once").orElse(null),
							(row) -> row != null && row.state() == JournalState.RUNNING && row.attempts() == 2);
				assertThat(row(context, "running", "fails-once").get().lastError()).contains("first attempt fails");
				secondAttemptMayEnd.countDown();
				Awaitility.await()
					.atMost(TIMEOUT)
					.until(() -> row(context, "running", "fails-once").map(Row::state).orElse(null),
							(state) -> state == JournalState.COMPLETED);
				assertThat(row(context, "running", "fails-once").get().attempts()).isEqualTo(2);
			}
			finally {
				firstRunMayEnd.countDown();
				secondAttemptMayEnd.countDown();
			}
		});
	}

	/**
	 * The process died after its transaction committed and before the send: simulated by
	 * a transaction that writes the outbox row and never sends (the send after commit
	 * belongs to the dead process). The relay of the running instance sends it.
	 */
	@Test
	void aJobWhoseSendAfterCommitNeverHappenedIsRelayedAndRunsOnce() {
		runner().run((context) -> {
			Runs runs = subscribe(context, "crash");
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			transaction(context).executeWithoutResult((status) -> journal.outbox()
				.write(List.of(Job.builder("crash").id("committed-not-sent").payload("the payload").build())));
			assertThat(row(context, "crash", "committed-not-sent").get().state()).isEqualTo(JournalState.OUTBOX);
			Awaitility.await().atMost(TIMEOUT).until(() -> runs.count("committed-not-sent") == 1);
			Awaitility.await()
				.atMost(TIMEOUT)
				.until(() -> row(context, "crash", "committed-not-sent").map(Row::state).orElse(null),
						(state) -> state == JournalState.COMPLETED);
			assertThat(journal.relayNow()).isZero();
			assertThat(runs.count("committed-not-sent")).isEqualTo(1);
			assertThat(runs.payloads()).containsExactly("the payload");
		});
	}

	/**
	 * A transaction replaces a job while its old version runs: Redis refuses to replace a
	 * running job, so the new version waits in the outbox. The old version then
	 * completes; its outcome must not finish the row of the new version, which the relay
	 * then sends and which runs.
	 */
	@Test
	void aJobReplacedInATransactionWhileItRunsIsSentOnceTheOldVersionEnded() {
		runner().run((context) -> {
			CountDownLatch oldMayEnd = new CountDownLatch(1);
			Runs runs = new Runs();
			context.getBean(Redeq.class).subscribe("replace-running", String.class, (payload, delivery) -> {
				runs.add(delivery.id(), payload, delivery.attempt());
				if (payload.equals("old")) {
					awaitRelease(oldMayEnd);
				}
			});
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			try {
				client.schedule(Job.builder("replace-running").id("r").payload("old").build());
				Awaitility.await()
					.atMost(TIMEOUT)
					.until(() -> row(context, "replace-running", "r").map(Row::state).orElse(null),
							(state) -> state == JournalState.RUNNING);
				// The transaction commits; its send after commit is refused, and says so.
				assertThatExceptionOfType(DuplicateJobException.class).isThrownBy(() -> transaction(context)
					.executeWithoutResult((status) -> client.schedule(Job.builder("replace-running")
						.id("r")
						.payload("new")
						.onDuplicate(Duplicate.REPLACE)
						.build())));
				assertThat(row(context, "replace-running", "r").get().state()).isEqualTo(JournalState.OUTBOX);
				oldMayEnd.countDown();
				// The old version's outcome is written, or waits for a row
				// of its version.
				assertThat(journal.writer().flush(TIMEOUT)).isTrue();
				assertThat(row(context, "replace-running", "r").get().state()).isEqualTo(JournalState.OUTBOX);
				Awaitility.await().atMost(TIMEOUT).until(() -> runs.count("r") == 2);
				assertThat(runs.payloads()).containsExactly("old", "new");
				Awaitility.await()
					.atMost(TIMEOUT)
					.until(() -> row(context, "replace-running", "r").map(Row::state).orElse(null),
							(state) -> state == JournalState.COMPLETED);
				assertThat(journal.versions().size()).isZero();
			}
			finally {
				oldMayEnd.countDown();
			}
		});
	}

	/**
	 * A transaction replaces a waiting job, and its process dies before the send: Redis
	 * still holds the old version, the outbox the new one. A second transaction then
	 * moves the job; the move reaches the old version in Redis, and the outbox row must
	 * stay in the outbox (with the new due time) for the relay to send the new version.
	 */
	@Test
	void aJobMovedBeforeItsOutboxRowWasSentIsStillSent() {
		runner().run((context) -> {
			Runs runs = subscribe(context, "moved-unsent");
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			RedeqClient client = context.getBean(RedeqClient.class);
			client.schedule(Job.builder("moved-unsent").id("m").payload("old").delay(Duration.ofHours(1)).build());
			assertThat(journal.writer().flush(TIMEOUT)).isTrue();
			transaction(context).executeWithoutResult((status) -> journal.outbox()
				.write(List.of(Job.builder("moved-unsent").id("m").payload("new").delay(Duration.ofHours(1)).build())));
			transaction(context)
				.executeWithoutResult((status) -> client.reschedule("moved-unsent", "m", Duration.ofMillis(200)));
			assertThat(row(context, "moved-unsent", "m").get().state()).isEqualTo(JournalState.OUTBOX);
			Awaitility.await().atMost(TIMEOUT).until(() -> runs.payloads().contains("new"));
			Awaitility.await()
				.atMost(TIMEOUT)
				.until(() -> row(context, "moved-unsent", "m").map(Row::state).orElse(null),
						(state) -> state == JournalState.COMPLETED);
		});
	}

	@Test
	void twoRelaysNeverSendTheSameRow() {
		// The application's own relay waits an hour between runs: only the
		// two below relay.
		runner().withPropertyValues("redeq.consumer.enabled=false", "redeq.journal.relay-interval=1h")
			.run((context) -> {
				DataSource dataSource = context.getBean(DataSource.class);
				int rows = 300;
				try (Connection connection = dataSource.getConnection();
						PreparedStatement insert = connection
							.prepareStatement("INSERT INTO redeq_job (topic, id, state, "
									+ "payload, due_at, attempts, created_at, updated_at) VALUES (?, ?, 'OUTBOX', ?, ?, 0, ?, ?)")) {
					for (int i = 0; i < rows; i++) {
						insert.setString(1, "relay");
						insert.setString(2, "r-" + i);
						insert.setString(3, "\"p-" + i + "\"");
						insert.setLong(4, 0);
						insert.setLong(5, 0);
						insert.setLong(6, 0);
						insert.addBatch();
					}
					insert.executeBatch();
				}
				Redeq redeq = context.getBean(Redeq.class);
				Map<String, AtomicInteger> sends = new ConcurrentHashMap<>();
				CountDownLatch start = new CountDownLatch(1);
				List<Thread> relays = new ArrayList<>();
				int[] sent = new int[2];
				for (int r = 0; r < 2; r++) {
					int index = r;
					OutboxRelay relay = new OutboxRelay(dataSource, "redeq_job", counting(redeq.client(), sends),
							JsonMapper.builder().build(), context.getBean(RedeqJournal.class).versions(),
							Clock.systemUTC(), Duration.ZERO, 10);
					Thread thread = new Thread(() -> {
						try {
							start.await();
							sent[index] = relay.relay(1000);
						}
						catch (Exception ex) {
							throw new IllegalStateException(ex);
						}
					});
					thread.start();
					relays.add(thread);
				}
				start.countDown();
				for (Thread thread : relays) {
					thread.join(TIMEOUT.toMillis());
				}
				assertThat(sent[0] + sent[1]).isEqualTo(rows);
				assertThat(sends).hasSize(rows);
				assertThat(sends.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
				// Past due: READY, or DELAYED until the migrator moves them
				// (no consumer runs).
				TopicStats stats = redeq.admin().stats("relay");
				assertThat(stats.ready() + stats.delayed()).isEqualTo(rows);
				assertThat(context.getBean(RedeqClient.class).find("relay", "r-7")).isPresent();
			});
	}

	@Test
	void jobsRedisLostAreRecoveredOnceEach() {
		runner().run((context) -> {
			CountDownLatch recoveredRunMayEnd = new CountDownLatch(1);
			Runs runs = subscribe(context, "lost", (id) -> {
				if (id.equals("l-0")) {
					awaitRelease(recoveredRunMayEnd);
				}
			});
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			int jobs = 20;
			for (int i = 0; i < jobs; i++) {
				client.schedule(Job.builder("lost").id("l-" + i).payload("x").delay(Duration.ofSeconds(8)).build());
			}
			assertThat(journal.writer().flush(TIMEOUT)).isTrue();
			// As if l-0 had failed twice: recovered with the attempts its row counts, its
			// next delivery is attempt 3 (of the default 3), journaled as RUNNING 3.
			try (Connection connection = context.getBean(DataSource.class).getConnection();
					Statement statement = connection.createStatement()) {
				statement.executeUpdate("UPDATE redeq_job SET state = 'RETRYING', attempts = 2, last_error = 'boom' "
						+ "WHERE topic = 'lost' AND id = 'l-0'");
			}
			this.redis.stop();
			this.redis.start(); // no persistence: Redis comes back empty
			try {
				Awaitility.await().atMost(TIMEOUT).until(journal::checkRedisNow);
				assertThat(journal.lossReason()).contains("Redis lost its data");
				assertThat(context.getBean(RedeqJournalHealthIndicator.class).health().getStatus().getCode())
					.isEqualTo("REDIS_DATA_LOSS");
				long recovered = context.getBean(RedeqAdmin.class).recoverFromJournal();
				assertThat(recovered).isEqualTo(jobs);
				assertThat(context.getBean(RedeqAdmin.class).recoverFromJournal()).isZero();
				assertThat(journal.checkRedisNow()).isFalse();
				assertThat(context.getBean(RedeqJournalHealthIndicator.class).health().getStatus().getCode())
					.isEqualTo("UP");
				Awaitility.await()
					.atMost(TIMEOUT)
					.until(() -> row(context, "lost", "l-0").orElse(null),
							(row) -> row != null && row.state() == JournalState.RUNNING && row.attempts() == 3);
				assertThat(runs.attempts("l-0")).containsExactly(3);
			}
			finally {
				recoveredRunMayEnd.countDown();
			}
			Awaitility.await().atMost(TIMEOUT).until(() -> completed(context, "lost") == jobs);
			for (int i = 0; i < jobs; i++) {
				assertThat(runs.count("l-" + i)).isEqualTo(1);
			}
			assertThat(runs.attempts("l-1")).containsExactly(1);
			assertThat(row(context, "lost", "l-0")).get().satisfies((row) -> {
				assertThat(row.state()).isEqualTo(JournalState.COMPLETED);
				assertThat(row.attempts()).isEqualTo(3);
			});
		});
	}

	@Test
	void autoRecoverSendsLostJobsUnasked() {
		runner().withPropertyValues("redeq.journal.auto-recover=true").run((context) -> {
			Runs runs = subscribe(context, "auto");
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			client.schedule(Job.builder("auto").id("a-1").payload("x").delay(Duration.ofSeconds(3)).build());
			assertThat(journal.writer().flush(TIMEOUT)).isTrue();
			this.redis.stop();
			this.redis.start();
			Awaitility.await().atMost(TIMEOUT).until(() -> runs.count("a-1") == 1);
			assertThat(journal.recovered()).isEqualTo(1);
		});
	}

	/**
	 * The database goes away while jobs are scheduled and run: Redis work goes on, the
	 * journal's lag and error show in its health, and once the database is back the
	 * journal catches up with every job.
	 */
	@Test
	void whileTheDatabaseIsDownNoJobIsLostAndTheJournalCatchesUp() {
		runner().run((context) -> {
			Runs runs = subscribe(context, "db-down");
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			stopDatabase();
			int jobs = 0;
			try {
				// 30 s without the database, jobs scheduled all along (at most 3000).
				long downUntil = System.nanoTime() + DATABASE_DOWN.toNanos();
				while (System.nanoTime() < downUntil && jobs < 3000) {
					for (int i = 0; i < 10; i++) {
						client.schedule(Job.builder("db-down").id("d-" + jobs++).payload("x").build());
					}
					Thread.sleep(100); // the pace of the load, not a wait for a condition
				}
				int scheduled = jobs;
				Awaitility.await().atMost(TIMEOUT).until(() -> runs.distinct() == scheduled);
				assertThat(journal.writer().lastError()).isNotNull();
				assertThat(journal.writer().lag()).isPositive();
				assertThat(context.getBean(RedeqJournalHealthIndicator.class).health().getDetails())
					.containsKey("writeError");
			}
			finally {
				startDatabase();
			}
			Awaitility.await().atMost(TIMEOUT).until(() -> journal.writer().lag() == 0);
			assertThat(journal.writer().dropped()).isZero();
			assertThat(journal.writer().lastError()).isNull();
			int scheduled = jobs;
			Awaitility.await().atMost(TIMEOUT).until(() -> completed(context, "db-down") == scheduled);
			assertThat(runs.payloads()).hasSize(scheduled);
		});
	}

	@Test
	void theWriterKeepsOrderAcrossRacesAndReusedIds() {
		runner().withPropertyValues("redeq.consumer.enabled=false")
			.run((context) -> writerKeepsOrder(context, context.getBean(JournalDialect.class)));
	}

	/**
	 * The writer's ordering rules on a real database: a job that finished before its
	 * "scheduled" event was written stays finished; an outcome whose row is not written
	 * yet waits for it; a job scheduled again under a finished id starts a new history.
	 */
	static void writerKeepsOrder(AssertableApplicationContext context, JournalDialect dialect) throws Exception {
		JournalWriter writer = new JournalWriter(context.getBean(DataSource.class), dialect, "redeq_job", 100, 10);
		writer.start();
		try {
			long t = System.currentTimeMillis();
			Job raced = Job.builder("order").id("raced").payload("x").build();
			// The worker's "completed" was queued before the caller's "scheduled".
			writer.offer(new JournalEvent.Changed("order", "raced", JournalState.COMPLETED, 1, null, null, t + 5));
			writer.offer(new JournalEvent.Scheduled(raced, t, t));
			assertThat(writer.flush(TIMEOUT)).isTrue();
			Awaitility.await()
				.atMost(TIMEOUT)
				.until(() -> row(context, "order", "raced").map(Row::state).orElse(null),
						(state) -> state == JournalState.COMPLETED);
			assertThat(row(context, "order", "raced").get().attempts()).isEqualTo(1);
			// The same id scheduled again later: a new history.
			writer.offer(new JournalEvent.Scheduled(raced, t + 100, t + 100));
			assertThat(writer.flush(TIMEOUT)).isTrue();
			Row again = row(context, "order", "raced").get();
			assertThat(again.state()).isEqualTo(JournalState.SCHEDULED);
			assertThat(again.attempts()).isZero();
			assertThat(again.finishedAt()).isNull();
			// A retry and an outcome in one batch with their insert.
			writer.offer(new JournalEvent.Scheduled(Job.builder("order").id("batched").build(), t, t));
			writer
				.offer(new JournalEvent.Changed("order", "batched", JournalState.RETRYING, 1, t + 1000, "boom", t + 1));
			writer.offer(new JournalEvent.Changed("order", "batched", JournalState.DEAD, 2, null, "no more attempts",
					t + 2));
			assertThat(writer.flush(TIMEOUT)).isTrue();
			Row dead = row(context, "order", "batched").get();
			assertThat(dead.state()).isEqualTo(JournalState.DEAD);
			assertThat(dead.attempts()).isEqualTo(2);
			assertThat(dead.lastError()).isEqualTo("no more attempts");
			assertThat(writer.written()).isEqualTo(6);
			runningKeepsOrder(context, writer, t);
		}
		finally {
			writer.stop(TIMEOUT);
		}
	}

	/**
	 * A start (RUNNING) that arrives late never hides what followed it: not the failure
	 * of the same attempt, not a later attempt's start, not the outcome; a start in one
	 * batch with its outcome leaves the outcome; a start whose row is not written yet
	 * waits for it.
	 */
	private static void runningKeepsOrder(AssertableApplicationContext context, JournalWriter writer, long t)
			throws Exception {
		writer.offer(new JournalEvent.Scheduled(Job.builder("order").id("late-start").build(), t, t));
		writer.offer(new JournalEvent.Changed("order", "late-start", JournalState.RUNNING, 1, null, null, t + 1));
		assertThat(writer.flush(TIMEOUT)).isTrue();
		assertThat(row(context, "order", "late-start").get()).extracting(Row::state, Row::attempts)
			.containsExactly(JournalState.RUNNING, 1);
		writer
			.offer(new JournalEvent.Changed("order", "late-start", JournalState.RETRYING, 1, t + 1000, "boom", t + 2));
		assertThat(writer.flush(TIMEOUT)).isTrue();
		// Attempt 1's start again, late (another instance's writer lagging): ignored.
		writer.offer(new JournalEvent.Changed("order", "late-start", JournalState.RUNNING, 1, null, null, t + 1));
		assertThat(writer.flush(TIMEOUT)).isTrue();
		assertThat(row(context, "order", "late-start").get()).extracting(Row::state, Row::attempts, Row::lastError)
			.containsExactly(JournalState.RETRYING, 1, "boom");
		// Attempt 2 starts: written over the failure of attempt 1, which keeps its error.
		writer.offer(new JournalEvent.Changed("order", "late-start", JournalState.RUNNING, 2, null, null, t + 3));
		assertThat(writer.flush(TIMEOUT)).isTrue();
		assertThat(row(context, "order", "late-start").get()).extracting(Row::state, Row::attempts, Row::lastError)
			.containsExactly(JournalState.RUNNING, 2, "boom");
		writer.offer(new JournalEvent.Changed("order", "late-start", JournalState.COMPLETED, 2, null, null, t + 4));
		assertThat(writer.flush(TIMEOUT)).isTrue();
		// Starts of attempts 2 and 3 after the completion: ignored.
		writer.offer(new JournalEvent.Changed("order", "late-start", JournalState.RUNNING, 2, null, null, t + 3));
		writer.offer(new JournalEvent.Changed("order", "late-start", JournalState.RUNNING, 3, null, null, t + 3));
		assertThat(writer.flush(TIMEOUT)).isTrue();
		Row completed = row(context, "order", "late-start").get();
		assertThat(completed.state()).isEqualTo(JournalState.COMPLETED);
		assertThat(completed.attempts()).isEqualTo(2);
		assertThat(completed.finishedAt()).isEqualTo(t + 4);
		// Start and outcome in one batch with their insert: the outcome stays.
		writer.offer(new JournalEvent.Scheduled(Job.builder("order").id("one-batch").build(), t, t));
		writer.offer(new JournalEvent.Changed("order", "one-batch", JournalState.RUNNING, 1, null, null, t + 1));
		writer.offer(new JournalEvent.Changed("order", "one-batch", JournalState.DEAD, 1, null, "poison", t + 2));
		assertThat(writer.flush(TIMEOUT)).isTrue();
		assertThat(row(context, "order", "one-batch").get()).extracting(Row::state, Row::attempts)
			.containsExactly(JournalState.DEAD, 1);
		// The worker's start was queued before the caller's "scheduled": it waits
		// for the row.
		writer.offer(new JournalEvent.Changed("order", "started-first", JournalState.RUNNING, 1, null, null, t + 1));
		writer.offer(new JournalEvent.Scheduled(Job.builder("order").id("started-first").build(), t, t));
		assertThat(writer.flush(TIMEOUT)).isTrue();
		Awaitility.await()
			.atMost(TIMEOUT)
			.until(() -> row(context, "order", "started-first").orElse(null),
					(row) -> row != null && row.state() == JournalState.RUNNING && row.attempts() == 1);
	}

	@Test
	void finishedRowsPastTheRetentionAreDeleted() {
		runner().withPropertyValues("redeq.journal.retention=1h", "redeq.journal.batch-size=7").run((context) -> {
			DataSource dataSource = context.getBean(DataSource.class);
			long old = System.currentTimeMillis() - Duration.ofHours(2).toMillis();
			try (Connection connection = dataSource.getConnection();
					PreparedStatement insert = connection.prepareStatement("INSERT INTO redeq_job (topic, id, state, "
							+ "due_at, attempts, created_at, updated_at, finished_at) VALUES (?, ?, ?, 0, 0, 0, 0, ?)")) {
				for (int i = 0; i < 30; i++) {
					insert.setString(1, "retention");
					insert.setString(2, "old-" + i);
					insert.setString(3, "COMPLETED");
					insert.setLong(4, old);
					insert.addBatch();
				}
				insert.setString(1, "retention");
				insert.setString(2, "recent");
				insert.setString(3, "DEAD");
				insert.setLong(4, System.currentTimeMillis());
				insert.addBatch();
				insert.setString(1, "retention");
				insert.setString(2, "pending");
				insert.setString(3, "SCHEDULED");
				insert.setObject(4, null);
				insert.addBatch();
				insert.executeBatch();
			}
			assertThat(context.getBean(RedeqJournal.class).deleteExpiredNow()).isEqualTo(30);
			assertThat(row(context, "retention", "old-3")).isEmpty();
			assertThat(row(context, "retention", "recent")).isPresent();
			assertThat(row(context, "retention", "pending")).isPresent();
		});
	}

	/**
	 * A job's own settings travel with its outbox row: sent by the relay (its send after
	 * commit never happened), a job of one attempt fails once and is DEAD, not retried
	 * with the topic's three; timeout, attempts and priority reach Redis; a REPLACE
	 * committed in the transaction replaces the job Redis held. After Redis lost
	 * everything, the recovery sends the job with its settings and its trace context.
	 */
	@Test
	void relayedAndRecoveredJobsKeepTheirOwnSettings() {
		runner().run((context) -> {
			Runs runs = subscribe(context, "own", (id) -> {
				throw new IllegalStateException("always fails");
			});
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			client.schedule(Job.builder("own").id("replaced").payload("old").delay(Duration.ofHours(1)).build());
			assertThat(journal.writer().flush(TIMEOUT)).isTrue();
			transaction(context).executeWithoutResult((status) -> journal.outbox()
				.write(List.of(Job.builder("own").id("once").payload("x").maxAttempts(1).build(),
						Job.builder("own")
							.id("settings")
							.payload("s")
							.delay(Duration.ofHours(1))
							.timeout(Duration.ofHours(2))
							.maxAttempts(5)
							.priority(9)
							.build(),
						Job.builder("own").id("replaced").payload("new").delay(Duration.ofHours(2)).build())));
			Awaitility.await()
				.atMost(TIMEOUT)
				.until(() -> row(context, "own", "once").map(Row::state).orElse(null),
						(state) -> state == JournalState.DEAD);
			assertThat(runs.attempts("once")).containsExactly(1);
			Awaitility.await()
				.atMost(TIMEOUT)
				.until(() -> row(context, "own", "replaced").map(Row::state).orElse(null),
						(state) -> state == JournalState.SCHEDULED);
			assertThat(stored(context, "own", "replaced")).endsWith("|\"new\"");
			assertThat(stored(context, "own", "settings")).contains(";t7200000", ";a5", ";p9");
			String trace = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
			try (Connection connection = context.getBean(DataSource.class).getConnection();
					Statement statement = connection.createStatement()) {
				statement.executeUpdate(
						"UPDATE redeq_job SET trace_context = '" + trace + "' WHERE topic = 'own' AND id = 'settings'");
			}
			flushRedis(context);
			assertThat(context.getBean(RedeqAdmin.class).recoverFromJournal()).isEqualTo(2);
			assertThat(stored(context, "own", "settings")).contains(";t7200000", ";a5", ";p9", trace)
				.endsWith("|\"s\"");
			assertThat(stored(context, "own", "replaced")).endsWith("|\"new\"");
		});
	}

	/**
	 * The journal holds a payload as Redis does: written at the call, on the caller's
	 * thread, by the engine's codec. A payload changed right after the call is journaled
	 * as it was sent; a payload only the engine's mapper can write is journaled, and does
	 * not stall the journal.
	 */
	@Test
	void thePayloadIsJournaledAsItWasSent() {
		runner().withUserConfiguration(MoneyMapperConfiguration.class).run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			List<String> lines = new ArrayList<>(List.of("as sent"));
			client.schedule(Job.builder("sent").id("mutated").payload(lines).delay(Duration.ofHours(1)).build());
			lines.add("changed after the call");
			client.schedule(
					Job.builder("sent").id("money").payload(new Money("12.50 EUR")).delay(Duration.ofHours(1)).build());
			Awaitility.await().atMost(TIMEOUT).until(() -> row(context, "sent", "money").isPresent());
			assertThat(journal.writer().flush(TIMEOUT)).isTrue();
			assertThat(column(context, "sent", "mutated", "payload")).isEqualTo("[\"as sent\"]");
			assertThat(column(context, "sent", "money", "payload")).isEqualTo("\"12.50 EUR\"");
		});
	}

	/**
	 * A KEEP that found the job there leaves the job's row as it is, outside a
	 * transaction and inside one (where the outbox row does not overwrite it either): the
	 * journal keeps describing the job Redis kept.
	 */
	@Test
	void aKeptJobKeepsItsRow() {
		runner().withPropertyValues("redeq.consumer.enabled=false").run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			client.schedule(Job.builder("keep").id("k").payload("first").delay(Duration.ofHours(1)).build());
			Awaitility.await().atMost(TIMEOUT).until(() -> row(context, "keep", "k").isPresent());
			client.schedule(Job.builder("keep")
				.id("k")
				.payload("second")
				.priority(9)
				.delay(Duration.ofHours(2))
				.onDuplicate(Duplicate.KEEP)
				.build());
			transaction(context).executeWithoutResult((status) -> client.schedule(
					Job.builder("keep").id("k").payload("third").maxAttempts(1).onDuplicate(Duplicate.KEEP).build()));
			assertThat(journal.writer().flush(TIMEOUT)).isTrue();
			assertThat(stored(context, "keep", "k")).endsWith("|\"first\"");
			assertThat(column(context, "keep", "k", "payload")).isEqualTo("\"first\"");
			assertThat(column(context, "keep", "k", "priority")).isEqualTo("0");
			assertThat(column(context, "keep", "k", "max_attempts")).isNull();
			assertThat(row(context, "keep", "k").get().state()).isEqualTo(JournalState.SCHEDULED);
		});
	}

	/**
	 * A table of schema version 1 (before the job's settings were journaled) is upgraded
	 * at startup with {@code always}, rows kept, and twice is harmless; with
	 * {@code never}, startup fails naming the missing columns and the script to run.
	 */
	@Test
	void aVersionOneTableIsUpgradedOrNamedAtStartup() throws SQLException {
		DriverManagerDataSource dataSource = new DriverManagerDataSource(jdbcUrl(), user(), "");
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("DROP TABLE IF EXISTS v1_job");
			statement.execute("CREATE TABLE v1_job (topic VARCHAR(200) NOT NULL, id VARCHAR(200) NOT NULL, "
					+ "state VARCHAR(16) NOT NULL, payload TEXT, due_at BIGINT NOT NULL, "
					+ "attempts INTEGER DEFAULT 0 NOT NULL, last_error VARCHAR(1000), created_at BIGINT NOT NULL, "
					+ "updated_at BIGINT NOT NULL, finished_at BIGINT, PRIMARY KEY (topic, id))");
			statement.execute("INSERT INTO v1_job (topic, id, state, payload, due_at, attempts, created_at, "
					+ "updated_at) VALUES ('old', 'kept', 'SCHEDULED', '\"x\"', 0, 1, 0, 0)");
		}
		ApplicationContextRunner v1 = runner().withPropertyValues("redeq.journal.table-prefix=v1_",
				"redeq.consumer.enabled=false");
		v1.withPropertyValues("redeq.journal.initialize-schema=never").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("v1_job")
				.hasMessageContaining("timeout_ms")
				.hasMessageContaining("recovered_in")
				.hasMessageContaining("job_version")
				.hasMessageContaining("schema-upgrade-2-");
		});
		for (int start = 0; start < 2; start++) {
			v1.run((context) -> {
				assertThat(context).hasNotFailed();
				context.getBean(RedeqClient.class)
					.schedule(Job.builder("new").id("n").payload("y").priority(9).delay(Duration.ofHours(1)).build());
				assertThat(context.getBean(RedeqJournal.class).writer().flush(TIMEOUT)).isTrue();
			});
		}
		try (Connection connection = dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement
					.executeQuery("SELECT topic, attempts, priority, max_attempts FROM v1_job ORDER BY topic")) {
			assertThat(rows.next()).isTrue();
			assertThat(rows.getString(1)).isEqualTo("new");
			assertThat(rows.getInt(3)).isEqualTo(9);
			assertThat(rows.next()).isTrue();
			assertThat(rows.getString(1)).isEqualTo("old");
			assertThat(rows.getInt(2)).isEqualTo(1);
			assertThat(rows.getInt(3)).isZero();
			assertThat(rows.getObject(4)).isNull();
			assertThat(rows.next()).isFalse();
		}
	}

	@Test
	void withoutTheTableTheApplicationFailsAtStartupSayingWhatToDo() {
		runner().withPropertyValues("redeq.journal.initialize-schema=never", "redeq.journal.table-prefix=absent_")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("absent_job");
				Throwable failure = context.getStartupFailure();
				while (failure.getCause() != null && !(failure instanceof IllegalStateException
						&& failure.getMessage().contains("initialize-schema"))) {
					failure = failure.getCause();
				}
				assertThat(failure).hasMessageContaining("redeq.journal.initialize-schema=always");
			});
	}

	@Test
	void recoverFromJournalWithoutAJournalSaysWhy() {
		runner().withPropertyValues("redeq.journal.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(RedeqJournal.class);
			assertThatIllegalStateException().isThrownBy(() -> context.getBean(RedeqAdmin.class).recoverFromJournal())
				.withMessageContaining("redeq.journal.enabled=true");
		});
	}

	// helpers

	/**
	 * The record Redis holds for a job: created time, settings, trace context, payload.
	 */
	static String stored(AssertableApplicationContext context, String topic, String id) {
		Redeq redeq = context.getBean(Redeq.class);
		KeySpace keys = new KeySpace(redeq.options().prefix(), redeq.options().buckets());
		String jobKey = KeySpace.jobKey(topic, id);
		try (RedisConnection connection = context.getBean(RedisConnectionFactory.class).getConnection()) {
			byte[] record = connection.hashCommands()
				.hGet((keys.tag(keys.bucketOf(jobKey)) + ":payload").getBytes(StandardCharsets.UTF_8),
						jobKey.getBytes(StandardCharsets.UTF_8));
			return (record != null) ? new String(record, StandardCharsets.UTF_8) : "";
		}
	}

	/** Redis loses everything, as a restart without persistence does. */
	static void flushRedis(AssertableApplicationContext context) {
		try (RedisConnection connection = context.getBean(RedisConnectionFactory.class).getConnection()) {
			connection.serverCommands().flushAll();
		}
	}

	/** One column of a job's row, as text (null when SQL NULL). */
	static String column(AssertableApplicationContext context, String topic, String id, String column)
			throws SQLException {
		try (Connection connection = context.getBean(DataSource.class).getConnection();
				PreparedStatement select = connection
					.prepareStatement("SELECT " + column + " FROM redeq_job WHERE topic = ? AND id = ?")) {
			select.setString(1, topic);
			select.setString(2, id);
			try (ResultSet rows = select.executeQuery()) {
				assertThat(rows.next()).as("row of %s/%s", topic, id).isTrue();
				return rows.getString(1);
			}
		}
	}

	/**
	 * Waits for a test to let a handler end, bounded so that a failed test never hangs.
	 */
	static void awaitRelease(CountDownLatch latch) {
		try {
			latch.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	static TransactionTemplate transaction(AssertableApplicationContext context) {
		return new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
	}

	static Runs subscribe(AssertableApplicationContext context, String topic) {
		return subscribe(context, topic, (id) -> {
		});
	}

	static Runs subscribe(AssertableApplicationContext context, String topic, Consumer<String> body) {
		Runs runs = new Runs();
		context.getBean(Redeq.class).subscribe(topic, String.class, (payload, delivery) -> {
			runs.add(delivery.id(), payload, delivery.attempt());
			body.accept(delivery.id());
		});
		return runs;
	}

	static RedeqClient counting(RedeqClient target, Map<String, AtomicInteger> sends) {
		return new RedeqClient() {

			@Override
			public String schedule(String topic, Object payload, Duration delay) {
				throw new UnsupportedOperationException();
			}

			@Override
			public String scheduleAt(String topic, Object payload, java.time.Instant dueAt) {
				throw new UnsupportedOperationException();
			}

			@Override
			public String schedule(Job job) {
				sends.computeIfAbsent(job.id(), (id) -> new AtomicInteger()).incrementAndGet();
				return target.schedule(job);
			}

			@Override
			public List<String> scheduleAll(Collection<Job> jobs) {
				jobs.forEach((job) -> sends.computeIfAbsent(job.id(), (id) -> new AtomicInteger()).incrementAndGet());
				return target.scheduleAll(jobs);
			}

			@Override
			public boolean cancel(String topic, String id) {
				return target.cancel(topic, id);
			}

			@Override
			public long cancelAll(String topic, Collection<String> ids) {
				return target.cancelAll(topic, ids);
			}

			@Override
			public boolean reschedule(String topic, String id, Duration delay) {
				return target.reschedule(topic, id, delay);
			}

			@Override
			public boolean reschedule(String topic, String id, java.time.Instant dueAt) {
				return target.reschedule(topic, id, dueAt);
			}

			@Override
			public Optional<JobInfo> find(String topic, String id) {
				return target.find(topic, id);
			}

			@Override
			public io.redeq.AsyncRedeqClient async() {
				return target.async();
			}

			@Override
			public String scheduleRecurring(io.redeq.Recurring recurring) {
				return target.scheduleRecurring(recurring);
			}

			@Override
			public boolean cancelRecurring(String topic, String id) {
				return target.cancelRecurring(topic, id);
			}

			@Override
			public Optional<PolledJob> poll(String topic, Duration maxWait) {
				return target.poll(topic, maxWait);
			}

		};
	}

	static Optional<Row> row(AssertableApplicationContext context, String topic, String id) throws SQLException {
		try (Connection connection = context.getBean(DataSource.class).getConnection();
				PreparedStatement select = connection.prepareStatement(
						"SELECT state, attempts, last_error, finished_at FROM redeq_job WHERE topic = ? AND id = ?")) {
			select.setString(1, topic);
			select.setString(2, id);
			try (ResultSet rows = select.executeQuery()) {
				if (!rows.next()) {
					return Optional.empty();
				}
				Long finishedAt = rows.getLong(4);
				if (rows.wasNull()) {
					finishedAt = null;
				}
				return Optional.of(new Row(JournalState.valueOf(rows.getString(1)), rows.getInt(2), rows.getString(3),
						finishedAt));
			}
		}
	}

	static long completed(AssertableApplicationContext context, String topic) throws SQLException {
		try (Connection connection = context.getBean(DataSource.class).getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(
						"SELECT COUNT(*) FROM redeq_job WHERE topic = '" + topic + "' AND state = 'COMPLETED'")) {
			rows.next();
			return rows.getLong(1);
		}
	}

	/** Deletes every journal row, so each test starts from an empty journal. */
	static void clearJournal(String url, String user) throws SQLException {
		DriverManagerDataSource dataSource = new DriverManagerDataSource(url, user, "");
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute("DELETE FROM redeq_job");
		}
		catch (SQLException ex) {
			// No table yet: the first test creates it.
		}
	}

	record Row(JournalState state, int attempts, String lastError, Long finishedAt) {
	}

	/** Which job ids ran, and how often. */
	static final class Runs {

		private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

		private final List<String> payloads = new CopyOnWriteArrayList<>();

		private final Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();

		void add(String id, String payload, int attempt) {
			this.counts.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
			this.payloads.add(payload);
			this.attempts.computeIfAbsent(id, (key) -> new CopyOnWriteArrayList<>()).add(attempt);
		}

		/** The attempt number of each delivery of the job, in order. */
		List<Integer> attempts(String id) {
			return this.attempts.getOrDefault(id, List.of());
		}

		List<String> payloads() {
			return this.payloads;
		}

		int count(String id) {
			AtomicInteger count = this.counts.get(id);
			return (count != null) ? count.get() : 0;
		}

		int distinct() {
			return this.counts.size();
		}

	}

	/** The engine's mapper writes Money as its text; a plain Jackson mapper cannot. */
	@Configuration(proxyBeanMethods = false)
	static class MoneyMapperConfiguration {

		@Bean
		RedeqBuilderCustomizer moneyMapper() {
			return (builder) -> builder
				.payloadMapper(JsonMapper.builder().addMixIn(Money.class, MoneyText.class).build());
		}

	}

	static final class Money {

		private final String text;

		Money(String text) {
			this.text = text;
		}

		String text() {
			return this.text;
		}

	}

	abstract static class MoneyText {

		@JsonValue
		abstract String text();

	}

}
