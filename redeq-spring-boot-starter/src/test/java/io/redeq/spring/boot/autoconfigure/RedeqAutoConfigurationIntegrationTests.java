package io.redeq.spring.boot.autoconfigure;

import java.time.Duration;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.mock.env.MockEnvironment;

import io.redeq.Backoff;
import io.redeq.BucketCountMismatchException;
import io.redeq.JobLifecycleListener;
import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.RedeqOptions;
import io.redeq.spring.internal.listener.RedeqListenerAnnotationBeanPostProcessor;
import io.redeq.spring.internal.listener.RedeqListenerEndpointRegistry;
import io.redeq.spring.internal.transaction.TransactionAwareRedeqClient;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedeqAutoConfiguration} building a running engine against a real redis-server:
 * defaults, every property, user beans, the switches, and the failures that need Redis.
 */
@RedisTest
class RedeqAutoConfigurationIntegrationTests {

	private final ApplicationContextRunner runner;

	private final RedisServer server;

	RedeqAutoConfigurationIntegrationTests(RedisServer server) {
		this.server = server;
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port());
	}

	@Test
	void defaultsAreTheOptionsDefaults() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(Redeq.class);
			assertThat(context).hasSingleBean(RedeqAdmin.class);
			assertThat(context).hasSingleBean(RedeqListenerEndpointRegistry.class);
			assertThat(context).hasBean(RedeqListenerAnnotationBeanPostProcessor.BEAN_NAME);
			assertThat(context.getBean(RedeqClient.class)).isInstanceOf(TransactionAwareRedeqClient.class);
			RedeqOptions options = context.getBean(Redeq.class).options();
			assertThat(options).usingRecursiveComparison().isEqualTo(RedeqOptions.builder().build());
		});
	}

	@Test
	void everyPropertyReachesTheEngine() {
		this.runner
			.withPropertyValues("redeq.prefix=shop", "redeq.buckets=4", "redeq.max-pending=500",
					"redeq.max-payload-size=2KB", "redeq.migrator.enabled=false", "redeq.migrator.batch-size=50",
					"redeq.migrator.sweep-interval=3s", "redeq.migrator.lock-ttl=30s", "redeq.consumer.concurrency=7",
					"redeq.consumer.prefetch=3", "redeq.consumer.timeout=45s", "redeq.consumer.max-attempts=9",
					"redeq.consumer.blocking=false", "redeq.consumer.poll-interval=250ms",
					"redeq.consumer.backoff.initial=2s", "redeq.consumer.backoff.multiplier=3",
					"redeq.consumer.backoff.max=1m", "redeq.consumer.backoff.jitter=0", "redeq.shutdown-timeout=4s",
					"redeq.dead-letter.retention=1d", "redeq.command-timeout=3s", "redeq.stats-refresh-interval=2s")
			.run((context) -> {
				RedeqOptions options = context.getBean(Redeq.class).options();
				assertThat(options).usingRecursiveComparison()
					.isEqualTo(RedeqOptions.builder()
						.prefix("shop")
						.buckets(4)
						.maxPending(500)
						.maxPayloadSize(2048)
						.migratorEnabled(false)
						.batchSize(50)
						.sweepInterval(Duration.ofSeconds(3))
						.lockTtl(Duration.ofSeconds(30))
						.concurrency(7)
						.prefetch(3)
						.timeout(Duration.ofSeconds(45))
						.maxAttempts(9)
						.backoff(new Backoff(Duration.ofSeconds(2), 3.0, Duration.ofMinutes(1), 0.0))
						.blocking(false)
						.pollInterval(Duration.ofMillis(250))
						.shutdownTimeout(Duration.ofSeconds(4))
						.deadLetterRetention(Duration.ofDays(1))
						.commandTimeout(Duration.ofSeconds(3))
						.statsRefreshInterval(Duration.ofSeconds(2))
						.build());
			});
	}

	@Test
	void engineRunsOnTheConnectionFactorysClientAndLeavesItOpen(RedisClient unused) {
		this.runner.run((context) -> {
			Redeq redeq = context.getBean(Redeq.class);
			LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
			String id = context.getBean(RedeqClient.class).schedule("smoke", "hello", Duration.ofHours(1));
			assertThat(context.getBean(RedeqClient.class).find("smoke", id)).isPresent();
			redeq.close();
			// redeq closed its own connections only; the factory's client still works.
			assertThat(factory.getConnection().ping()).isEqualTo("PONG");
		});
	}

	@Test
	void transactionalFalseGivesThePlainClient() {
		this.runner.withPropertyValues("redeq.transactional=false")
			.run((context) -> assertThat(context.getBean(RedeqClient.class))
				.isNotInstanceOf(TransactionAwareRedeqClient.class)
				.isSameAs(context.getBean(Redeq.class).client()));
	}

	@Test
	void consumerDisabledMakesAProducerOnlyApplication() {
		this.runner.withPropertyValues("redeq.consumer.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(RedeqClient.class);
			assertThat(context).doesNotHaveBean(RedeqListenerEndpointRegistry.class);
			assertThat(context).doesNotHaveBean(RedeqListenerAnnotationBeanPostProcessor.BEAN_NAME);
		});
	}

	@Test
	void userBeansWin(RedisClient lettuce) {
		Redeq own = Redeq.builder(lettuce).prefix("own").build();
		RedeqClient client = own.client();
		RedeqAdmin admin = own.admin();
		try {
			this.runner.withBean(Redeq.class, () -> own)
				.withBean(RedeqClient.class, () -> client)
				.withBean(RedeqAdmin.class, () -> admin)
				.run((context) -> {
					assertThat(context.getBean(Redeq.class)).isSameAs(own);
					assertThat(context.getBean(RedeqClient.class)).isSameAs(client);
					assertThat(context.getBean(RedeqAdmin.class)).isSameAs(admin);
					assertThat(context).doesNotHaveBean(RedeqEngineLifecycle.class);
				});
			this.runner.withBean(Redeq.class, () -> own).run((context) -> {
				// The client and admin come from the user's engine.
				assertThat(context.getBean(RedeqAdmin.class)).isSameAs(own.admin());
				assertThat(((TransactionAwareRedeqClient) context.getBean(RedeqClient.class)).getTargetClient())
					.isSameAs(own.client());
			});
		}
		finally {
			own.close();
		}
	}

	@Test
	void lifecycleListenerAndCustomizerBeansReachTheBuilder() {
		JobLifecycleListener listener = new JobLifecycleListener() {
		};
		this.runner.withBean(JobLifecycleListener.class, () -> listener)
			.withBean(RedeqBuilderCustomizer.class, () -> (builder) -> builder.instanceId("custom-instance"))
			.run((context) -> assertThat(context.getBean(Redeq.class).instanceId()).isEqualTo("custom-instance"));
	}

	@Test
	void invalidTopicOverrideFailsStartupNamingTheKey() {
		this.runner.withPropertyValues("redeq.topics.order.timeout.concurrency=0").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = RedeqAutoConfigurationTests.analyze(context.getStartupFailure(),
					new MockEnvironment().withProperty("redeq.topics.order.timeout.concurrency", "0"));
			assertThat(analysis.getDescription())
				.contains("Invalid value '0' for configuration property 'redeq.topics.order.timeout.concurrency'")
				.contains("must be at least 1");
		});
	}

	@Test
	void aBucketCountDifferentFromRedisIsOverriddenByTheRecordedOne() {
		this.runner.withPropertyValues("redeq.buckets=16").run((context) -> assertThat(context).hasNotFailed());
		this.runner.withPropertyValues("redeq.buckets=32").run((context) -> {
			assertThat(context).hasNotFailed();
			Redeq redeq = context.getBean(Redeq.class);
			assertThat(redeq.options().buckets()).as("the count recorded in Redis").isEqualTo(16);
			String id = redeq.client().schedule("follow", "x", Duration.ofHours(1));
			assertThat(redeq.client().find("follow", id)).isPresent();
		});
	}

	@Test
	void aBucketCountMismatchIsAnalysed() {
		FailureAnalysis analysis = new BucketCountMismatchFailureAnalyzer()
			.analyze(new BucketCountMismatchException("redeq", 16, 32));
		assertThat(analysis.getDescription())
			.contains("holds jobs in 16 buckets in Redis, but 32 buckets are configured");
		assertThat(analysis.getAction()).startsWith("Set redeq.buckets=16").contains("changeBucketCount");
	}

	@Test
	void startsWhileRedisIsDownAndWorksOnceItIsUp() {
		RedisServer late = new RedisServer();
		try {
			// Reserve a port by starting and stopping a server; the same server
			// restarts on it.
			late.start();
			int port = late.port();
			late.stop();
			this.runner.withPropertyValues("spring.data.redis.port=" + port, "redeq.command-timeout=1s")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					late.start();
					assertThat(late.port()).isEqualTo(port);
					Awaitility.await()
						.atMost(Duration.ofSeconds(20))
						.ignoreExceptions()
						.until(() -> context.getBean(RedeqClient.class).schedule("late", "x", Duration.ZERO) != null);
				});
		}
		finally {
			late.close();
		}
	}

	@Test
	void theEngineStartsWithTheContextNotWhenItsBeanIsCreated(RedisClient lettuce) {
		// Fails the refresh after every bean, the engine included, was created, and
		// before the engine's own lifecycle phase.
		this.runner.withBean(RefusingLifecycle.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasRootCauseMessage("refused to start");
		});
		try (StatefulRedisConnection<String, String> connection = lettuce.connect()) {
			assertThat(connection.sync().dbsize()).as("keys a context that never started left").isZero();
		}
		this.runner.run((context) -> Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> context.getBean(Redeq.class).ownedBuckets().length == 16));
	}

	static class RefusingLifecycle implements SmartLifecycle {

		@Override
		public void start() {
			throw new IllegalStateException("refused to start");
		}

		@Override
		public void stop() {
		}

		@Override
		public boolean isRunning() {
			return false;
		}

		@Override
		public int getPhase() {
			return 0;
		}

	}

}
