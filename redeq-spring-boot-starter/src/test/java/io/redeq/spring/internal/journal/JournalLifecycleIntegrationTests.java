package io.redeq.spring.internal.journal;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqJournalAutoConfiguration;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The journal's threads ({@code redeq-journal}, {@code redeq-journal-writer}) end with
 * the context: when it closes, when its refresh fails after the journal started, and when
 * its beans are destroyed without a stop.
 */
@RedisTest
class JournalLifecycleIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(20);

	private final ApplicationContextRunner runner;

	JournalLifecycleIntegrationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
					RedeqAutoConfiguration.class, RedeqJournalAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";MODE=PostgreSQL;DB_CLOSE_DELAY=-1",
					"redeq.journal.enabled=true", "redeq.consumer.enabled=false");
	}

	@Test
	void aRefreshThatFailsAfterTheJournalStartedLeavesNoJournalThread() {
		Set<Thread> before = journalThreads();
		this.runner.withUserConfiguration(FailsToStartAfterTheJournal.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("fails on purpose");
		});
		assertThat(FailsToStartAfterTheJournal.journalWasRunning).as("the journal had started").isTrue();
		Awaitility.await()
			.atMost(TIMEOUT)
			.untilAsserted(() -> assertThat(newThreads(before)).as("journal threads left").isEmpty());
	}

	@Test
	void closingTheContextEndsTheJournalThreads() {
		Set<Thread> before = journalThreads();
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(RedeqJournal.class).isRunning()).isTrue();
			assertThat(newThreads(before)).extracting(Thread::getName)
				.contains("redeq-journal", "redeq-journal-writer");
		});
		Awaitility.await()
			.atMost(TIMEOUT)
			.untilAsserted(() -> assertThat(newThreads(before)).as("journal threads left").isEmpty());
	}

	/**
	 * The journal's own guarantee, whoever destroys its bean: its threads end without a
	 * call to {@code stop()}.
	 */
	@Test
	void destroyingTheBeansWithoutAStopEndsTheJournalThreads() {
		Set<Thread> before = journalThreads();
		this.runner.run((context) -> {
			assertThat(context.getBean(RedeqJournal.class).isRunning()).isTrue();
			context.getSourceApplicationContext(ConfigurableApplicationContext.class)
				.getBeanFactory()
				.destroySingletons();
			Awaitility.await()
				.atMost(TIMEOUT)
				.untilAsserted(() -> assertThat(newThreads(before)).as("journal threads left").isEmpty());
		});
	}

	private static Set<Thread> newThreads(Set<Thread> before) {
		Set<Thread> now = journalThreads();
		now.removeAll(before);
		return now;
	}

	private static Set<Thread> journalThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.isAlive() && thread.getName().startsWith("redeq-journal"))
			.collect(Collectors.toSet());
	}

	/** A lifecycle bean that starts after the journal, and fails. */
	@Configuration(proxyBeanMethods = false)
	static class FailsToStartAfterTheJournal {

		static volatile boolean journalWasRunning;

		@Bean
		SmartLifecycle failingLifecycle(ObjectProvider<RedeqJournal> journal) {
			AtomicBoolean running = new AtomicBoolean();
			return new SmartLifecycle() {

				@Override
				public void start() {
					journalWasRunning = journal.getObject().isRunning();
					throw new IllegalStateException("fails on purpose, after the journal started");
				}

				@Override
				public void stop() {
					running.set(false);
				}

				@Override
				public boolean isRunning() {
					return running.get();
				}

				@Override
				public int getPhase() {
					return Integer.MAX_VALUE;
				}

			};
		}

	}

}
