package io.redeq.spring.internal.journal;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.CapacityExceededException;
import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.RedeqClient;
import io.redeq.RedeqException;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqJournalAutoConfiguration;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the outbox relay does with a row it could not send, on an embedded H2 database and
 * a real redis-server: a row of a full topic steps back so that the rows behind it go
 * out, and only an error about the job itself gives a row up. Each test drives a relay of
 * its own; the application's waits an hour between runs.
 */
@RedisTest
class OutboxRelayIntegrationTests {

	private static final Duration GRACE = Duration.ofSeconds(2);

	private final ApplicationContextRunner runner;

	OutboxRelayIntegrationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					RedeqAutoConfiguration.class, RedeqJournalAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1",
					"redeq.journal.enabled=true", "redeq.journal.relay-interval=1h", "redeq.consumer.enabled=false");
	}

	/**
	 * A batch made only of rows of a full topic: before, the relay claimed those same
	 * rows again on every batch and every run (oldest first), and the rows of other
	 * topics behind them never went out.
	 */
	@Test
	void rowsOfAFullTopicStepBackSoThatTheRowsBehindThemAreSent() {
		this.runner.withPropertyValues("redeq.buckets=1", "redeq.max-pending=1").run((context) -> {
			RedeqClient redis = context.getBean(Redeq.class).client();
			redis.schedule(Job.builder("full").id("filler").payload("x").delay(Duration.ofHours(1)).build());
			assertThatExceptionOfType(CapacityExceededException.class)
				.isThrownBy(() -> redis.schedule(Job.builder("full").id("more").payload("x").build()));
			for (int i = 0; i < 3; i++) {
				writeUnsentRow(context, "full", "f-" + i, i + 1);
				writeUnsentRow(context, "other-" + i, "o-" + i, i + 10);
			}
			OutboxRelay relay = relay(context, redis, 3);
			assertThat(relay.relay(5)).isEqualTo(3);
			for (int i = 0; i < 3; i++) {
				assertThat(state(context, "other-" + i, "o-" + i)).isEqualTo(JournalState.SCHEDULED);
				assertThat(redis.find("other-" + i, "o-" + i)).isPresent();
				// Still to send, stamped now: claimed again after the grace period.
				assertThat(state(context, "full", "f-" + i)).isEqualTo(JournalState.OUTBOX);
				assertThat(updatedAt(context, "full", "f-" + i)).isGreaterThan(i + 1);
			}
			assertThat(relay.relay(5)).as("nothing older than the grace period").isZero();
		});
	}

	/**
	 * An error not about the job (Redis refusing the script for its user, the engine
	 * closed) leaves the row in the outbox and fails the run, so that the error shows;
	 * before, the row was marked DEAD and the job never ran.
	 */
	@Test
	void anErrorNotAboutTheJobLeavesTheRowInTheOutbox() {
		this.runner.run((context) -> {
			writeUnsentRow(context, "refusing", "r-1", 1);
			writeUnsentRow(context, "refusing", "r-2", 2);
			RedeqException refused = new RedeqException(
					"Redis rejected schedule 2 jobs: NOPERM this user has no permissions to run the 'fcall' command");
			assertThatThrownBy(() -> relay(context, failing(refused), 10).relay(5)).isSameAs(refused);
			IllegalStateException closed = new IllegalStateException("redeq is closed");
			// The row that met the error stepped back: date both back again for this run.
			backdate(context, "refusing", "r-1", 1);
			backdate(context, "refusing", "r-2", 2);
			assertThatThrownBy(() -> relay(context, failing(closed), 10).relay(5)).isSameAs(closed);
			assertThat(state(context, "refusing", "r-1")).isEqualTo(JournalState.OUTBOX);
			assertThat(state(context, "refusing", "r-2")).isEqualTo(JournalState.OUTBOX);
			// The redis-server itself takes them.
			backdate(context, "refusing", "r-1", 1);
			assertThat(relay(context, context.getBean(Redeq.class).client(), 10).relay(5)).isEqualTo(2);
			assertThat(state(context, "refusing", "r-1")).isEqualTo(JournalState.SCHEDULED);
			assertThat(state(context, "refusing", "r-2")).isEqualTo(JournalState.SCHEDULED);
		});
	}

	/** A row whose payload cannot be read is about that job: DEAD with the reason. */
	@Test
	void aRowWhosePayloadCannotBeReadIsMarkedDeadAndTheOthersAreSent() {
		this.runner.run((context) -> {
			writeUnsentRow(context, "unreadable", "bad", 1);
			writeUnsentRow(context, "unreadable", "good", 2);
			try (Connection connection = context.getBean(DataSource.class).getConnection();
					PreparedStatement corrupt = connection
						.prepareStatement("UPDATE redeq_job SET payload = '{not json' WHERE id = 'bad'")) {
				assertThat(corrupt.executeUpdate()).isOne();
			}
			RedeqClient redis = context.getBean(Redeq.class).client();
			assertThat(relay(context, redis, 10).relay(5)).isEqualTo(1);
			assertThat(state(context, "unreadable", "bad")).isEqualTo(JournalState.DEAD);
			assertThat(state(context, "unreadable", "good")).isEqualTo(JournalState.SCHEDULED);
			assertThat(redis.find("unreadable", "good")).isPresent();
		});
	}

	private static OutboxRelay relay(AssertableApplicationContext context, RedeqClient client, int batchSize) {
		return new OutboxRelay(context.getBean(DataSource.class), "redeq_job", client, JsonMapper.builder().build(),
				context.getBean(RedeqJournal.class).versions(), Clock.systemUTC(), GRACE, batchSize);
	}

	/** A client every call of which fails with the given error. */
	private static RedeqClient failing(RuntimeException failure) {
		return (RedeqClient) Proxy.newProxyInstance(RedeqClient.class.getClassLoader(),
				new Class<?>[] { RedeqClient.class }, (proxy, method, args) -> {
					throw failure;
				});
	}

	/**
	 * An outbox row whose send after commit never happened, written as a transaction
	 * writes it, then dated back to {@code updatedAt} (epoch milliseconds), long past the
	 * grace period.
	 */
	private static void writeUnsentRow(AssertableApplicationContext context, String topic, String id, long updatedAt)
			throws SQLException {
		RedeqJournal journal = context.getBean(RedeqJournal.class);
		JournalScenarios.transaction(context)
			.executeWithoutResult((status) -> journal.outbox()
				.write(List.of(Job.builder(topic).id(id).payload("payload of " + id).build())));
		backdate(context, topic, id, updatedAt);
	}

	private static void backdate(AssertableApplicationContext context, String topic, String id, long updatedAt)
			throws SQLException {
		try (Connection connection = context.getBean(DataSource.class).getConnection();
				PreparedStatement backdate = connection
					.prepareStatement("UPDATE redeq_job SET updated_at = ? WHERE topic = ? AND id = ?")) {
			backdate.setLong(1, updatedAt);
			backdate.setString(2, topic);
			backdate.setString(3, id);
			assertThat(backdate.executeUpdate()).isOne();
		}
	}

	private static JournalState state(AssertableApplicationContext context, String topic, String id)
			throws SQLException {
		return JournalState.valueOf(column(context, "state", topic, id));
	}

	private static long updatedAt(AssertableApplicationContext context, String topic, String id) throws SQLException {
		return Long.parseLong(column(context, "updated_at", topic, id));
	}

	private static String column(AssertableApplicationContext context, String column, String topic, String id)
			throws SQLException {
		try (Connection connection = context.getBean(DataSource.class).getConnection();
				PreparedStatement select = connection
					.prepareStatement("SELECT " + column + " FROM redeq_job WHERE topic = ? AND id = ?")) {
			select.setString(1, topic);
			select.setString(2, id);
			try (ResultSet rows = select.executeQuery()) {
				assertThat(rows.next()).as("row %s/%s", topic, id).isTrue();
				return rows.getString(1);
			}
		}
	}

}
