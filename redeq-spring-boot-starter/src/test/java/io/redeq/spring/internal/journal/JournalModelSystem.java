package io.redeq.spring.internal.journal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import javax.sql.DataSource;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqJournalAutoConfiguration;
import io.redeq.test.PostgresServer;
import io.redeq.test.RedisServer;

/**
 * What {@link JournalModelIntegrationTests} runs against: one redis-server that keeps
 * nothing on disk, one PostgreSQL server, and {@value #INSTANCES} application contexts
 * with the journal on, as {@value #INSTANCES} instances of one application. Each instance
 * runs the model's handler on {@link #TOPIC}. The first one recovers by itself
 * ({@code auto-recover}); the others only when asked.
 */
final class JournalModelSystem implements AutoCloseable {

	static final int INSTANCES = 3;

	static final String TOPIC = "jmodel";

	/** The relay's grace period: twice its interval, at least 2 s. */
	static final Duration GRACE = Duration.ofSeconds(2);

	/** A handler's timeout, so a job whose completion Redis refused runs again soon. */
	static final Duration JOB_TIMEOUT = Duration.ofSeconds(3);

	private final RedisServer redis = new RedisServer();

	private final PostgresServer postgres = new PostgresServer();

	private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private final JournalModelRecorder recorder;

	JournalModelSystem(JournalModelRecorder recorder) {
		this.recorder = recorder;
	}

	void start() throws SQLException {
		this.redis.start();
		this.postgres.start();
		JournalScenarios.clearJournal(this.postgres.jdbcUrl(), PostgresServer.USER);
		for (int i = 0; i < INSTANCES; i++) {
			ConfigurableApplicationContext context = new SpringApplicationBuilder(ModelApplication.class)
				.web(WebApplicationType.NONE)
				.properties(properties(i == 0))
				.run();
			this.instances.add(context);
			int instance = i;
			context.getBean(Redeq.class)
				.subscribe(TOPIC, String.class, (payload, delivery) -> this.recorder.run(instance, delivery, payload));
		}
	}

	private String[] properties(boolean autoRecover) {
		return new String[] { "spring.data.redis.host=" + this.redis.host(),
				"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.timeout=2s",
				"spring.datasource.url=" + this.postgres.jdbcUrl(), "spring.datasource.username=" + PostgresServer.USER,
				"spring.datasource.password=",
				// While the database is down a transaction fails at once instead of
				// waiting 30 s for a connection.
				"spring.datasource.hikari.connection-timeout=1000", "spring.datasource.hikari.maximum-pool-size=6",
				"redeq.command-timeout=2s", "redeq.journal.enabled=true", "redeq.journal.initialize-schema=always",
				"redeq.journal.relay-interval=1s", "redeq.journal.check-interval=1s",
				"redeq.journal.auto-recover=" + autoRecover, "redeq.consumer.poll-interval=100ms",
				"redeq.consumer.concurrency=4", "redeq.consumer.timeout=" + JOB_TIMEOUT.toMillis() + "ms",
				"redeq.consumer.backoff.initial=200ms", "redeq.consumer.backoff.max=200ms",
				"redeq.consumer.backoff.multiplier=1", "redeq.consumer.backoff.jitter=0",
				"logging.level.io.redeq=ERROR", "logging.level.com.zaxxer=OFF", "logging.level.io.lettuce=OFF" };
	}

	int size() {
		return this.instances.size();
	}

	RedeqClient client(int instance) {
		return this.instances.get(instance).getBean(RedeqClient.class);
	}

	TransactionTemplate transaction(int instance) {
		return new TransactionTemplate(this.instances.get(instance).getBean(PlatformTransactionManager.class));
	}

	RedeqJournal journal(int instance) {
		return this.instances.get(instance).getBean(RedeqJournal.class);
	}

	RedeqAdmin admin(int instance) {
		return this.instances.get(instance).getBean(RedeqAdmin.class);
	}

	RedisConnectionFactory connectionFactory() {
		return this.instances.get(0).getBean(RedisConnectionFactory.class);
	}

	/** Lets every instance's writer write what it holds; false if one did not. */
	boolean flushWriters(Duration timeout) {
		boolean all = true;
		for (int i = 0; i < size(); i++) {
			all &= journal(i).writer().flush(timeout);
		}
		return all;
	}

	/** {@code recoverFromJournal()} on every instance at the same moment. */
	List<Long> recoverEverywhere() {
		List<CompletableFuture<Long>> calls = new ArrayList<>();
		for (int i = 0; i < size(); i++) {
			RedeqAdmin admin = admin(i);
			calls.add(CompletableFuture.supplyAsync(admin::recoverFromJournal));
		}
		return calls.stream().map(CompletableFuture::join).toList();
	}

	/** Whether no instance believes Redis lost data it has not recovered. */
	boolean noLossKnown() {
		for (int i = 0; i < size(); i++) {
			if (journal(i).lossReason() != null) {
				return false;
			}
		}
		return true;
	}

	void flushAll() {
		this.redis.flushAll();
	}

	/** Stops redis-server and starts it again: it comes back empty. */
	void restartRedis() {
		this.redis.stop();
		this.redis.start();
	}

	/**
	 * With {@code maxmemory 1} and the default {@code noeviction} policy Redis refuses
	 * every write (OOM) and still answers reads.
	 */
	void refuseWrites(boolean refuse) {
		try (RedisConnection connection = connectionFactory().getConnection()) {
			connection.serverCommands().setConfig("maxmemory", refuse ? "1" : "0");
		}
	}

	void stopDatabase() {
		this.postgres.stop();
	}

	void startDatabase() {
		this.postgres.start();
	}

	/** The journal rows of the jobs whose ids start with {@code idPrefix}. */
	Map<String, FinalRow> rows(String idPrefix) throws SQLException {
		DataSource dataSource = this.instances.get(0).getBean(DataSource.class);
		Map<String, FinalRow> rows = new HashMap<>();
		try (Connection connection = dataSource.getConnection();
				PreparedStatement select = connection.prepareStatement("SELECT id, state, payload, attempts, "
						+ "finished_at FROM redeq_job WHERE topic = ? AND id LIKE ?")) {
			select.setString(1, TOPIC);
			select.setString(2, idPrefix + "%");
			try (ResultSet result = select.executeQuery()) {
				while (result.next()) {
					long finishedAt = result.getLong(5);
					boolean pending = result.wasNull();
					rows.put(result.getString(1), new FinalRow(JournalState.valueOf(result.getString(2)),
							result.getString(3), result.getInt(4), pending ? null : finishedAt));
				}
			}
		}
		return rows;
	}

	@Override
	public void close() {
		for (ConfigurableApplicationContext context : this.instances) {
			try {
				context.close();
			}
			catch (RuntimeException ex) {
				// The next one is closed all the same.
			}
		}
		this.postgres.close();
		this.redis.close();
	}

	@Override
	public String toString() {
		return INSTANCES + " instances on " + this.redis + " and PostgreSQL on port " + this.postgres.port();
	}

	/** A job's row as the run left it. */
	record FinalRow(JournalState state, String payload, int attempts, Long finishedAt) {

		boolean pending() {
			return this.finishedAt == null;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DataSourceAutoConfiguration.class,
			DataSourceTransactionManagerAutoConfiguration.class, RedeqAutoConfiguration.class,
			RedeqJournalAutoConfiguration.class })
	static class ModelApplication {

	}

}
