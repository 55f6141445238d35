package io.redeq;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The bucket layout recorded for a prefix, watched by running instances: every change of
 * the count is counted in the layout's generation; an instance that finds a change begun
 * migrates and claims nothing, says so once, and goes on when the layout is its own
 * again; one that finds another count recorded follows it, without a restart.
 */
@RedisTest
class BucketLayoutWatchIntegrationTests {

	/** A third of it is how often the migrator heartbeats and reads the layout. */
	private static final Duration LOCK_TTL = Duration.ofMillis(900);

	private final RedisClient lettuce;

	private StatefulRedisConnection<String, String> connection;

	private ListAppender<ILoggingEvent> logs;

	BucketLayoutWatchIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void connect() {
		this.connection = this.lettuce.connect();
		this.logs = new ListAppender<>();
		this.logs.start();
		watchLogger().addAppender(this.logs);
	}

	@AfterEach
	void disconnect() {
		watchLogger().detachAppender(this.logs);
		this.connection.close();
	}

	@Test
	void everyChangeOfTheCountIsCountedInTheLayoutGeneration() {
		String prefix = "generations";
		try (Redeq admin = idle(prefix)) {
			admin.start();
			admin.close();
		}
		assertThat(redis().hget(prefix + ":meta", "layout-generation")).isNull();
		try (Redeq admin = idle(prefix)) {
			admin.admin().changeBucketCount(32);
			assertThat(redis().hget(prefix + ":meta", "layout-generation")).isEqualTo("1");
			admin.admin().changeBucketCount(32);
			assertThat(redis().hget(prefix + ":meta", "layout-generation")).as("a change to the same count")
				.isEqualTo("1");
			admin.admin().changeBucketCount(16);
			assertThat(redis().hget(prefix + ":meta", "layout-generation")).isEqualTo("2");
		}
		try (Redeq running = Redeq.builder(this.lettuce).prefix(prefix).instanceId("runner").build();
				Redeq admin = idle(prefix)) {
			assertThat(running.options().buckets()).isEqualTo(16);
			// Beside a running instance: its buckets are frozen while the jobs move.
			admin.admin().changeBucketCount(64);
			assertThat(redis().hget(prefix + ":meta", "layout-generation")).as("after a change beside an instance")
				.isEqualTo("3");
			assertThat(redis().hget(prefix + ":meta", "buckets")).isEqualTo("64");
			assertThat(redis().hget(prefix + ":meta", "buckets-changing-to")).isNull();
		}
	}

	@Test
	void anInstanceThatMissedTheStartOfAChangeHoldsUntilTheChangeIsOver() {
		String prefix = "missed";
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		try (Redeq running = Redeq.builder(this.lettuce).prefix(prefix).lockTtl(LOCK_TTL).build();
				Redeq producer = idle(prefix)) {
			running.subscribe("work", String.class, (payload,
					delivery) -> runs.computeIfAbsent(delivery.id(), (id) -> new AtomicInteger()).incrementAndGet());
			producer.client().schedule(Job.builder("work").id("before").payload("x").build());
			await().atMost(Duration.ofSeconds(10)).until(() -> runs.containsKey("before"));

			// What a change that began while this instance's heartbeat had lapsed leaves
			// in the meta hash.
			redis().hset(prefix + ":meta", Map.of("buckets-changing-to", "32", "layout-generation", "1"));
			await().atMost(Duration.ofSeconds(5)).until(() -> running.ownedBuckets().length == 0);
			assertThat(infos("a change of its bucket count from 16 to 32 (layout generation 1) has begun"))
				.isEqualTo(1);

			// A due job stays DELAYED (nobody migrates), a READY one is not claimed.
			producer.client().schedule(Job.builder("work").id("due").payload("x").build());
			producer.client().schedule(Job.builder("work").id("ready").payload("x").delay(Duration.ofHours(1)).build());
			assertThat(producer.admin().promote("work", "ready")).isTrue();
			await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() -> runs.size() == 1);
			assertThat(producer.client().find("work", "due"))
				.hasValueSatisfying((job) -> assertThat(job.state()).isEqualTo(JobState.DELAYED));
			assertThat(producer.client().find("work", "ready"))
				.hasValueSatisfying((job) -> assertThat(job.state()).isEqualTo(JobState.READY));
			assertThat(infos("has begun")).as("said once").isEqualTo(1);

			// The change is over and the count is this instance's again: it goes on.
			redis().hdel(prefix + ":meta", "buckets-changing-to");
			await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() == 3);
			await().atMost(Duration.ofSeconds(5)).until(() -> running.admin().stats("work").pending() == 0);
		}
		assertThat(runs.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
	}

	@Test
	void anInstanceOnAnotherCountThanTheRecordedOneFollowsItWithoutARestart() {
		String prefix = "stale";
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		ListAppender<ILoggingEvent> engineLogs = new ListAppender<>();
		engineLogs.start();
		Logger engineLogger = (Logger) LoggerFactory.getLogger(Redeq.class);
		engineLogger.addAppender(engineLogs);
		try (Redeq running = Redeq.builder(this.lettuce).prefix(prefix).lockTtl(LOCK_TTL).build()) {
			Subscription subscription = running.subscribe("work", String.class, (payload,
					delivery) -> runs.computeIfAbsent(delivery.id(), (id) -> new AtomicInteger()).incrementAndGet());
			await().atMost(Duration.ofSeconds(5)).until(() -> running.ownedBuckets().length == 16);

			// What a change to 64 that finished while this instance's heartbeat had
			// lapsed records (here with no job to move).
			redis().hset(prefix + ":meta", Map.of("buckets", "64", "layout-generation", "1"));
			await().atMost(Duration.ofSeconds(5)).until(() -> running.ownedBuckets().length == 64);
			assertThat(running.options().buckets()).isEqualTo(64);
			assertThat(infos("is laid out in 64 buckets in Redis (layout generation 1), but this instance runs on 16"))
				.as("said once")
				.isEqualTo(1);
			synchronized (engineLogs.list) {
				assertThat(engineLogs.list).filteredOn((event) -> event.getLevel() == Level.WARN)
					.extracting(ILoggingEvent::getFormattedMessage)
					.filteredOn((message) -> message.contains("now runs on 64 buckets"))
					.hasSize(1);
			}

			// The subscription the application holds consumes on the new layout.
			running.client().schedule(Job.builder("work").id("after").payload("x").build());
			await().atMost(Duration.ofSeconds(10)).until(() -> runs.containsKey("after"));
			assertThat(subscription.isRunning()).isTrue();
			subscription.close();
			assertThat(subscription.isRunning()).isFalse();
			assertThat(running.subscribedTopics()).isEmpty();
		}
		finally {
			engineLogger.detachAppender(engineLogs);
		}
		assertThat(runs.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
	}

	private RedisCommands<String, String> redis() {
		return this.connection.sync();
	}

	private Redeq idle(String prefix) {
		return Redeq.builder(this.lettuce).prefix(prefix).autoStartup(false).build();
	}

	private long infos(String text) {
		return count(Level.INFO, text);
	}

	private long count(Level level, String text) {
		synchronized (this.logs.list) {
			return this.logs.list.stream()
				.filter((event) -> event.getLevel() == level)
				.filter((event) -> event.getFormattedMessage().contains(text))
				.count();
		}
	}

	private static Logger watchLogger() {
		return (Logger) LoggerFactory.getLogger("io.redeq.internal.migrator.LayoutWatch");
	}

}
