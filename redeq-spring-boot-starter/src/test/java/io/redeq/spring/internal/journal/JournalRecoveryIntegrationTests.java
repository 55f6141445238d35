package io.redeq.spring.internal.journal;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import javax.sql.DataSource;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.redeq.Job;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.internal.redis.KeySpace;
import io.redeq.spring.boot.autoconfigure.health.RedeqHealthContributorAutoConfiguration;
import io.redeq.spring.internal.journal.JournalScenarios.Runs;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Recovery after Redis lost its data, on several instances at once and while jobs run:
 * each lost job is sent once per loss, a job that finished is not sent again, and the
 * recurring jobs keep firing. Two instances are two application contexts on one
 * redis-server and one PostgreSQL server, both started by the test support.
 */
@RedisTest
class JournalRecoveryIntegrationTests {

	@RegisterExtension
	static final PostgresJournal postgres = new PostgresJournal();

	private final RedisServer redis;

	JournalRecoveryIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	private ApplicationContextRunner runner() {
		return postgres.runner(this.redis, "redeq.journal.check-interval=1s", "redeq.consumer.poll-interval=100ms")
			.withConfiguration(AutoConfigurations.of(RedeqHealthContributorAutoConfiguration.class));
	}

	/**
	 * Instance A recovers and the jobs run and finish, their outcomes not yet in the
	 * journal (a lock the test holds on their rows keeps A's writer waiting); then
	 * instance B recovers: the buckets are marked recovered, so B sends none of them
	 * again, and each job runs once.
	 */
	@Test
	void aSecondRecoveryOnAnotherInstanceSendsNoJobThatFinishedMeanwhile() {
		runner().run((first) -> runner().withPropertyValues("redeq.consumer.enabled=false").run((second) -> {
			Runs runs = JournalScenarios.subscribe(first, "twice");
			RedeqClient client = first.getBean(RedeqClient.class);
			int jobs = 50;
			for (int i = 0; i < jobs; i++) {
				client.schedule(Job.builder("twice").id("t-" + i).payload("x").delay(Duration.ofSeconds(3)).build());
			}
			assertThat(first.getBean(RedeqJournal.class).writer().flush(JournalScenarios.TIMEOUT)).isTrue();
			this.redis.flushAll();
			assertThat(first.getBean(RedeqAdmin.class).recoverFromJournal()).isEqualTo(jobs);
			try (Connection lock = first.getBean(DataSource.class).getConnection()) {
				lock.setAutoCommit(false);
				try (PreparedStatement rows = lock
					.prepareStatement("SELECT id FROM redeq_job WHERE topic = 'twice' FOR UPDATE")) {
					rows.executeQuery().close();
				}
				Awaitility.await().atMost(JournalScenarios.TIMEOUT).until(() -> runs.distinct() == jobs);
				Awaitility.await()
					.atMost(JournalScenarios.TIMEOUT)
					.until(() -> first.getBean(RedeqAdmin.class).stats("twice").pending() == 0);
				// Finished in Redis, still pending in the journal.
				assertThat(JournalScenarios.completed(first, "twice")).isZero();
				assertThat(second.getBean(RedeqAdmin.class).recoverFromJournal()).isZero();
				lock.commit();
			}
			Awaitility.await()
				.atMost(JournalScenarios.TIMEOUT)
				.until(() -> JournalScenarios.completed(first, "twice") == jobs);
			assertThat(first.getBean(RedeqAdmin.class).recoverFromJournal()).isZero();
			for (int i = 0; i < jobs; i++) {
				assertThat(runs.count("t-" + i)).as("runs of t-" + i).isEqualTo(1);
			}
		}));
	}

	/**
	 * Two instances recover the same loss at the same moment: between them they send each
	 * lost job exactly once (the second waits for the first's locked rows and finds them
	 * recovered in the same loss generation), and each runs once.
	 */
	@Test
	void twoInstancesRecoveringAtOnceSendEachJobOnce() {
		runner().run((first) -> runner().run((second) -> {
			Runs runs = JournalScenarios.subscribe(first, "both");
			RedeqClient client = first.getBean(RedeqClient.class);
			int jobs = 300;
			List<Job> batch = new ArrayList<>();
			for (int i = 0; i < jobs; i++) {
				batch.add(Job.builder("both").id("b-" + i).payload("x").delay(Duration.ofSeconds(3)).build());
			}
			client.scheduleAll(batch);
			assertThat(first.getBean(RedeqJournal.class).writer().flush(JournalScenarios.TIMEOUT)).isTrue();
			this.redis.flushAll();
			CompletableFuture<Long> byFirst = CompletableFuture
				.supplyAsync(() -> first.getBean(RedeqAdmin.class).recoverFromJournal());
			CompletableFuture<Long> bySecond = CompletableFuture
				.supplyAsync(() -> second.getBean(RedeqAdmin.class).recoverFromJournal());
			assertThat(byFirst.get() + bySecond.get()).isEqualTo(jobs);
			Awaitility.await()
				.atMost(JournalScenarios.TIMEOUT)
				.until(() -> JournalScenarios.completed(first, "both") == jobs);
			assertThat(runs.distinct()).isEqualTo(jobs);
			for (int i = 0; i < jobs; i++) {
				assertThat(runs.count("b-" + i)).as("runs of b-" + i).isEqualTo(1);
			}
		}));
	}

	/**
	 * Recurring definitions live in Redis's buckets and have no rows: after a loss, the
	 * recovery declares the configured ones again and their occurrences go on.
	 */
	@Test
	void recurringJobsKeepFiringAfterRedisLostItsData() {
		runner().withPropertyValues("redeq.recurring.tick.topic=ticks", "redeq.recurring.tick.every=1s")
			.run((context) -> {
				Runs runs = JournalScenarios.subscribe(context, "ticks");
				RedeqJournal journal = context.getBean(RedeqJournal.class);
				context.getBean(RedeqClient.class)
					.schedule(Job.builder("later").id("pending").payload("x").delay(Duration.ofHours(1)).build());
				assertThat(journal.writer().flush(JournalScenarios.TIMEOUT)).isTrue();
				Awaitility.await().atMost(JournalScenarios.TIMEOUT).until(() -> runs.count("tick") >= 1);
				this.redis.flushAll();
				Awaitility.await().atMost(JournalScenarios.TIMEOUT).until(journal::checkRedisNow);
				assertThat(context.getBean(RedeqAdmin.class).recoverFromJournal()).isEqualTo(1);
				int before = runs.count("tick");
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> runs.count("tick") >= before + 2);
			});
	}

	/**
	 * A job that must never be retried ({@code maxAttempts(1)}) keeps that setting
	 * through a recovery: restored after Redis lost it, it runs once, fails and is DEAD,
	 * not tried again with the topic's default attempts.
	 */
	@Test
	void aJobThatMustNotBeRetriedRunsOnceAfterARecovery() {
		runner().run((context) -> {
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			context.getBean(RedeqClient.class)
				.schedule(Job.builder("once")
					.id("charge")
					.payload("x")
					.delay(Duration.ofSeconds(2))
					.maxAttempts(1)
					.build());
			assertThat(journal.writer().flush(JournalScenarios.TIMEOUT)).isTrue();
			this.redis.flushAll();
			assertThat(context.getBean(RedeqAdmin.class).recoverFromJournal()).isEqualTo(1);
			Runs runs = JournalScenarios.subscribe(context, "once", (id) -> {
				throw new IllegalStateException("the side effect failed");
			});
			Awaitility.await()
				.atMost(JournalScenarios.TIMEOUT)
				.until(() -> JournalScenarios.row(context, "once", "charge")
					.map(JournalScenarios.Row::state)
					.orElse(null), (state) -> state == JournalState.DEAD);
			assertThat(runs.attempts("charge")).containsExactly(1);
			assertThat(context.getBean(RedeqAdmin.class).stats("once").dead()).isEqualTo(1);
		});
	}

	/**
	 * A bucket's marker is set by the journal only: a fresh Redis under a journal with no
	 * pending rows gets its markers quietly, and the health stays UP.
	 */
	@Test
	void aFreshRedisIsMarkedQuietly() {
		runner().run((context) -> {
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			this.redis.flushAll();
			assertThat(journal.checkRedisNow()).isFalse();
			assertThat(journal.lossReason()).isNull();
			BucketMarkers markers = markers(context);
			assertThat(markers.read()).containsOnly(RedisMarker.State.PRESENT);
			assertThat(context.getBean(RedeqAdmin.class).recoverFromJournal()).isZero();
		});
	}

	/**
	 * After a change of the bucket count the journal watches the new buckets' markers:
	 * the buckets the new layout adds are marked quietly (their jobs moved, none is sent
	 * again), and a later loss of one new bucket's data is noticed and recovered.
	 */
	@Test
	void aLossOfABucketAddedByAChangeOfTheBucketCountIsNoticedAndRecovered() {
		runner().withPropertyValues("redeq.consumer.enabled=false").run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqAdmin admin = context.getBean(RedeqAdmin.class);
			RedeqJournal journal = context.getBean(RedeqJournal.class);
			List<String> ids = new ArrayList<>();
			for (int i = 0; i < 64; i++) {
				ids.add("m-" + i);
				client.schedule(Job.builder("moved").id("m-" + i).payload("x").delay(Duration.ofHours(1)).build());
			}
			assertThat(journal.writer().flush(JournalScenarios.TIMEOUT)).isTrue();
			assertThat(journal.checkRedisNow()).isFalse();

			assertThat(admin.changeBucketCount(32)).isPositive();
			assertThat(journal.checkRedisNow()).as("the new buckets are marked, nothing is lost").isFalse();
			assertThat(markers(context, 32).read()).containsOnly(RedisMarker.State.PRESENT);
			assertThat(admin.recoverFromJournal()).isZero();

			KeySpace keys = new KeySpace("redeq", 32);
			int bucket = keys.bucketOf(KeySpace.jobKey("moved", "m-0"));
			List<String> lost = ids.stream()
				.filter((id) -> keys.bucketOf(KeySpace.jobKey("moved", id)) == bucket)
				.toList();
			deleteBucket(context, keys.tag(bucket));
			assertThat(admin.job("moved", "m-0")).isEmpty();
			Awaitility.await().atMost(JournalScenarios.TIMEOUT).until(journal::checkRedisNow);
			assertThat(admin.recoverFromJournal()).isEqualTo(lost.size());
			assertThat(ids).allSatisfy((id) -> assertThat(admin.job("moved", id)).isPresent());
		});
	}

	/** Redis loses one bucket's data: every key in its hash tag, its marker too. */
	private static void deleteBucket(AssertableApplicationContext context, String tag) {
		try (RedisConnection connection = context.getBean(RedisConnectionFactory.class).getConnection()) {
			Set<byte[]> keys = connection.keyCommands().keys((tag + "*").getBytes(StandardCharsets.UTF_8));
			assertThat(keys).as("keys of %s", tag).isNotEmpty();
			connection.keyCommands().del(keys.toArray(byte[][]::new));
		}
	}

	static BucketMarkers markers(AssertableApplicationContext context) {
		return markers(context, 16);
	}

	static BucketMarkers markers(AssertableApplicationContext context, int buckets) {
		return new BucketMarkers(context.getBean(RedisConnectionFactory.class), "redeq", buckets);
	}

}
