package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.internal.redis.ClaimResult;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.MigrateResult;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.test.RedisTest;
import io.redeq.test.TcpPorts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lease keeper against a real Redis: it renews the claims of finished jobs whose
 * completion waits for Redis, and it reports a lost lease only for a job that still runs
 * when the renewal's reply arrives (the test holds replies back with
 * {@code CLIENT PAUSE WRITE}, so a job can finish between a renewal's request and its
 * reply).
 */
@RedisTest
class LeaseKeeperIntegrationTests {

	private static final String TOPIC = "leased";

	private final RedisClient lettuce;

	LeaseKeeperIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@Test
	void warnsOfALostLeaseOnceAndOnlyForAJobStillRunningWhenTheReplyArrives() throws Exception {
		KeySpace keys = new KeySpace("leases", 16);
		// Redis holds neither job, as after a completion or a reclaim, so every renewal
		// is refused. Both are in one bucket: one extend script asks for both.
		ClaimedJob finished = job(keys, "finished", keys.bucketOf(KeySpace.jobKey(TOPIC, "finished")));
		ClaimedJob stillRunning = job(keys, findIdIn(keys, finished.bucket()), finished.bucket());
		RunningJob finishedRun = new RunningJob(finished);
		Set<RunningJob> running = ConcurrentHashMap.newKeySet();
		running.add(finishedRun);
		running.add(new RunningJob(stillRunning));
		ListAppender<ILoggingEvent> warnings = captureWarnings();
		ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
		RedisConnections connections = new RedisConnections(this.lettuce);
		RedisJobStore store = new RedisJobStore(keys, new ScriptRunner(connections, Duration.ofSeconds(10)));
		LeaseKeeper keeper = new LeaseKeeper(store, Duration.ofMillis(300), running,
				new Acknowledgements(store, TOPIC, timers, Runnable::run, Acknowledgements.NextJobs.NONE));
		try (StatefulRedisConnection<String, String> admin = this.lettuce.connect()) {
			client(admin, "PAUSE", "10000", "WRITE");
			try {
				keeper.start(timers);
				// A renewal asking for both jobs is on its way; Redis holds it back.
				await().atMost(Duration.ofSeconds(5))
					.until(() -> admin.sync()
						.clientList()
						.lines()
						.anyMatch((c) -> c.contains(" flags=b ") && c.contains(" cmd=eval")));

				// Meanwhile one job finishes: it settles and leaves the running jobs.
				assertThat(finishedRun.settle()).isTrue();
				running.remove(finishedRun);
			}
			finally {
				client(admin, "UNPAUSE");
			}

			await().atMost(Duration.ofSeconds(5)).until(() -> warningsAbout(warnings, stillRunning.id()) > 0);
			assertThat(warningsAbout(warnings, finished.id())).as("warnings for the job that had finished").isZero();

			// Ten more renewal rounds, and every reply on the connection read (a PING
			// after them): the loss is told once, not once a round.
			timers.schedule(() -> {
			}, 1, TimeUnit.SECONDS).get();
			store.scripts().await(connections.commands().ping(), "ping");
			assertThat(warningsAbout(warnings, stillRunning.id())).as("warnings for the job that runs").isOne();
		}
		finally {
			keeper.stop();
			timers.shutdownNow();
			connections.close();
			((Logger) LoggerFactory.getLogger(LeaseKeeper.class)).detachAppender(warnings);
		}
	}

	@Test
	void keepsRenewingTheLeaseOfAFinishedJobUntilRedisAnswersForItsCompletion() {
		Duration lease = Duration.ofMillis(600);
		KeySpace keys = new KeySpace("renewals", 16);
		ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
		ExecutorService retries = Executors.newSingleThreadExecutor();
		RedisConnections connections = new RedisConnections(this.lettuce);
		RedisJobStore store = new RedisJobStore(keys, new ScriptRunner(connections, Duration.ofSeconds(10)));
		// Completions go to a Redis that is not there: they fail and wait for a retry.
		RedisClient nowhere = RedisClient.create("redis://127.0.0.1:" + TcpPorts.freePort());
		RedisConnections noConnections = new RedisConnections(nowhere);
		RedisJobStore unreachable = new RedisJobStore(keys, new ScriptRunner(noConnections, Duration.ofMillis(500)));
		Acknowledgements completions = new Acknowledgements(unreachable, TOPIC, timers, retries,
				Acknowledgements.NextJobs.NONE);
		LeaseKeeper keeper = new LeaseKeeper(store, lease, Set.of(), completions);
		try (Redeq redeq = Redeq.builder(this.lettuce).prefix("renewals").migratorEnabled(false).build()) {
			redeq.client().schedule(Job.builder(TOPIC).id("done").payload("x").build());
			int bucket = keys.bucketOf(KeySpace.jobKey(TOPIC, "done"));
			assertThat(store.migrate(bucket, 10, false, "", 1000, 0).migrated()).isOne();
			ClaimResult claim = store.scripts()
				.await(store.claim(bucket, TOPIC, 1, lease.toMillis(), "me:1", 5), "claim");
			long firstDeadline = claim.now() + lease.toMillis();
			keeper.start(timers);

			completions.complete(claim.jobs().get(0), (answer) -> {
			});

			// Redis's clock passes the deadline of the claim, and a sweep finds the lease
			// renewed, not expired.
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				MigrateResult sweep = store.migrate(bucket, 10, true, "checker", 1000, 0);
				assertThat(sweep.reclaimed()).as("leases reclaimed").isZero();
				return sweep.now() > firstDeadline + lease.toMillis() && sweep.nextLeaseExpiry() > sweep.now();
			});
			assertThat(completions.unconfirmed()).containsExactly(claim.jobs().get(0));
		}
		finally {
			keeper.stop();
			timers.shutdownNow();
			retries.shutdownNow();
			connections.close();
			noConnections.close();
			nowhere.shutdown();
		}
	}

	private static ClaimedJob job(KeySpace keys, String id, int bucket) {
		return new ClaimedJob(bucket, KeySpace.jobKey(TOPIC, id), TOPIC, id, 1, 0, 0, "{}", "token-" + id);
	}

	private static String findIdIn(KeySpace keys, int bucket) {
		for (int i = 0; i < 10_000; i++) {
			if (keys.bucketOf(KeySpace.jobKey(TOPIC, "running" + i)) == bucket) {
				return "running" + i;
			}
		}
		throw new IllegalStateException("No id found in bucket " + bucket);
	}

	private static void client(StatefulRedisConnection<String, String> admin, String... args) {
		CommandArgs<String, String> commandArgs = new CommandArgs<>(StringCodec.UTF8);
		for (String arg : args) {
			commandArgs.add(arg);
		}
		admin.sync().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8), commandArgs);
	}

	private static ListAppender<ILoggingEvent> captureWarnings() {
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		((Logger) LoggerFactory.getLogger(LeaseKeeper.class)).addAppender(appender);
		return appender;
	}

	private static long warningsAbout(ListAppender<ILoggingEvent> warnings, String id) {
		synchronized (warnings.list) {
			return warnings.list.stream()
				.filter((event) -> event.getLevel() == Level.WARN
						&& event.getFormattedMessage().contains("'" + id + "'"))
				.count();
		}
	}

}
