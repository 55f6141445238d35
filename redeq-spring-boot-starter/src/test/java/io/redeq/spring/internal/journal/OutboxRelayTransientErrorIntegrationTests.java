package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.RedeqUnavailableException;
import io.redeq.spring.boot.autoconfigure.health.RedeqHealthContributorAutoConfiguration;
import io.redeq.spring.internal.health.RedeqJournalHealthIndicator;
import io.redeq.test.PostgresServer;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Redis refusing writes for a while (out of memory under {@code noeviction}, loading its
 * data, a read-only replica after a failover) is not a reason to give a job up: the
 * outbox row stays unsent, the relay's error shows in the health, a {@code schedule}
 * caller gets {@link RedeqUnavailableException}, and once Redis takes writes again the
 * relay sends the job and it runs. Against PostgreSQL and real redis-servers: the
 * application's, and a second one it is made a replica of.
 */
@RedisTest
class OutboxRelayTransientErrorIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	/** Keys the master holds in the loading test, loaded 1 ms apiece by the replica. */
	private static final int KEYS_TO_LOAD = 4000;

	private static PostgresServer postgres;

	private static RedisServer master;

	private final RedisServer redis;

	OutboxRelayTransientErrorIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	@BeforeAll
	static void startServers() {
		postgres = new PostgresServer().start();
		// A replica's full sync starts at once, rather than after the default 5 s.
		master = new RedisServer().withArgs("--repl-diskless-sync-delay", "0").start();
	}

	@AfterAll
	static void stopServers() {
		if (master != null) {
			master.close();
		}
		if (postgres != null) {
			postgres.close();
		}
	}

	@BeforeEach
	void emptyJournalAndMaster() throws SQLException {
		JournalScenarios.clearJournal(postgres.jdbcUrl(), PostgresServer.USER);
		master.flushAll();
	}

	private ApplicationContextRunner runner() {
		return PostgresJournalRunner
			.runner(this.redis, postgres, "redeq.journal.relay-interval=200ms", "redeq.journal.check-interval=1h",
					"redeq.consumer.poll-interval=100ms", "redeq.command-timeout=2s")
			.withConfiguration(AutoConfigurations.of(RedeqHealthContributorAutoConfiguration.class));
	}

	@Test
	void outOfMemoryLeavesTheRowInTheOutboxUntilRedisTakesWritesAgain() {
		runner().run((context) -> {
			JournalScenarios.Runs runs = JournalScenarios.subscribe(context, "oom");
			redis((commands) -> {
				commands.configSet("maxmemory-policy", "noeviction");
				commands.configSet("maxmemory", "1");
			});
			try {
				writeUnsentRow(context, "oom", "oom-1");
				assertThatExceptionOfType(RedeqUnavailableException.class)
					.isThrownBy(() -> context.getBean(Redeq.class)
						.client()
						.schedule(Job.builder("oom").id("direct").payload("x").build()))
					.withMessageContaining("OOM");
				assertRelayFailsLeavingTheRow(context, "oom", "oom-1", "OOM");
			}
			finally {
				redis((commands) -> commands.configSet("maxmemory", "0"));
			}
			assertRelayedAndRun(context, runs, "oom", "oom-1");
		});
	}

	@Test
	void aReadOnlyReplicaLeavesTheRowInTheOutboxUntilItIsAMasterAgain() {
		runner().run((context) -> {
			JournalScenarios.Runs runs = JournalScenarios.subscribe(context, "readonly");
			// A failover, seen from the old master: it is made the replica of
			// the new one.
			redis((commands) -> commands.replicaof(master.host(), master.port()));
			try {
				writeUnsentRow(context, "readonly", "ro-1");
				assertThatExceptionOfType(RedeqUnavailableException.class)
					.isThrownBy(() -> context.getBean(Redeq.class)
						.client()
						.schedule(Job.builder("readonly").id("direct").payload("x").build()))
					.withMessageContaining("READONLY");
				assertRelayFailsLeavingTheRow(context, "readonly", "ro-1", "READONLY");
			}
			finally {
				redis(RedisCommands::replicaofNoOne);
			}
			assertRelayedAndRun(context, runs, "readonly", "ro-1");
		});
	}

	/**
	 * Redis loading its data: made deterministic by making the application's Redis the
	 * replica of one that holds {@link #KEYS_TO_LOAD} keys, with Redis's
	 * {@code key-load-delay} (a pause per key loaded) and events served every KB of the
	 * load, so that it answers LOADING for a few seconds, then READONLY.
	 */
	@Test
	void redisLoadingItsDataLeavesTheRowInTheOutbox() {
		runner().run((context) -> {
			JournalScenarios.Runs runs = JournalScenarios.subscribe(context, "loading");
			try (RedisClient client = RedisClient.create(master.uri());
					StatefulRedisConnection<String, String> connection = client.connect()) {
				connection.sync()
					.eval("for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'k' .. i, 'v') end",
							ScriptOutputType.STATUS, new String[0], String.valueOf(KEYS_TO_LOAD));
			}
			redis((commands) -> {
				commands.configSet("key-load-delay", "1000");
				commands.configSet("loading-process-events-interval-bytes", "1024");
			});
			writeUnsentRow(context, "loading", "load-1");
			redis((commands) -> commands.replicaof(master.host(), master.port()));
			try {
				AtomicReference<@Nullable RuntimeException> refused = new AtomicReference<>();
				Awaitility.await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(20)).until(() -> {
					refused.set(scheduleFailure(context));
					return refused.get() != null && refused.get().getMessage().contains("LOADING");
				});
				assertThat(refused.get()).isInstanceOf(RedeqUnavailableException.class);
				assertRelayFailsLeavingTheRow(context, "loading", "load-1", "LOADING");
				// Loaded, the replica refuses writes as READONLY: the row still waits.
				assertRelayFailsLeavingTheRow(context, "loading", "load-1", "READONLY");
			}
			finally {
				// Redis refuses both while it still loads (a failed
				// assertion comes early).
				Awaitility.await().atMost(TIMEOUT).ignoreExceptions().until(() -> {
					redis((commands) -> {
						commands.configSet("key-load-delay", "0");
						commands.replicaofNoOne();
					});
					return true;
				});
			}
			assertRelayedAndRun(context, runs, "loading", "load-1");
		});
	}

	/**
	 * Waits for the application's relay to report an error naming {@code code}, then
	 * checks the row was left in the outbox. Before the fix, such an error marked the row
	 * DEAD and the run succeeded: the wait ends on that too, and the check fails.
	 */
	private void assertRelayFailsLeavingTheRow(AssertableApplicationContext context, String topic, String id,
			String code) throws SQLException {
		RedeqJournalHealthIndicator health = context.getBean(RedeqJournalHealthIndicator.class);
		Awaitility.await()
			.atMost(TIMEOUT)
			.until(() -> String.valueOf(health.health().getDetails().get("relayError")).contains(code)
					|| state(context, topic, id) != JournalState.OUTBOX);
		assertThat(state(context, topic, id)).isEqualTo(JournalState.OUTBOX);
		assertThat(health.health().getDetails().get("relayError")).asString().contains(code);
	}

	private void assertRelayedAndRun(AssertableApplicationContext context, JournalScenarios.Runs runs, String topic,
			String id) throws SQLException {
		Awaitility.await().atMost(TIMEOUT).until(() -> runs.count(id) == 1);
		Awaitility.await().atMost(TIMEOUT).until(() -> state(context, topic, id) == JournalState.COMPLETED);
		assertThat(context.getBean(RedeqJournalHealthIndicator.class).health().getDetails())
			.doesNotContainKey("relayError");
		assertThat(runs.count(id)).isEqualTo(1);
	}

	private static @Nullable RuntimeException scheduleFailure(AssertableApplicationContext context) {
		try {
			context.getBean(Redeq.class).client().schedule(Job.builder("loading").id("direct").payload("x").build());
			return null;
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	/**
	 * An outbox row whose send after commit never happened, old enough for the relay:
	 * written as a transaction writes it, then dated back past the grace period.
	 */
	private static void writeUnsentRow(AssertableApplicationContext context, String topic, String id)
			throws SQLException {
		RedeqJournal journal = context.getBean(RedeqJournal.class);
		JournalScenarios.transaction(context)
			.executeWithoutResult((status) -> journal.outbox()
				.write(List.of(Job.builder(topic).id(id).payload("payload of " + id).build())));
		try (Connection connection = context.getBean(DataSource.class).getConnection();
				PreparedStatement backdate = connection
					.prepareStatement("UPDATE redeq_job SET updated_at = 0 WHERE topic = ? AND id = ?")) {
			backdate.setString(1, topic);
			backdate.setString(2, id);
			assertThat(backdate.executeUpdate()).isOne();
		}
	}

	static @Nullable JournalState state(AssertableApplicationContext context, String topic, String id)
			throws SQLException {
		try (Connection connection = context.getBean(DataSource.class).getConnection();
				PreparedStatement select = connection
					.prepareStatement("SELECT state FROM redeq_job WHERE topic = ? AND id = ?")) {
			select.setString(1, topic);
			select.setString(2, id);
			try (ResultSet rows = select.executeQuery()) {
				return rows.next() ? JournalState.valueOf(rows.getString(1)) : null;
			}
		}
	}

	private void redis(Consumer<RedisCommands<String, String>> commands) {
		try (RedisClient client = RedisClient.create(this.redis.uri());
				StatefulRedisConnection<String, String> connection = client.connect()) {
			commands.accept(connection.sync());
		}
	}

}
