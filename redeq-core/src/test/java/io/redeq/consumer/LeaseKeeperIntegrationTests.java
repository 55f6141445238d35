package io.redeq.consumer;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

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

import io.redeq.redis.ClaimedJob;
import io.redeq.redis.KeySpace;
import io.redeq.redis.RedisConnections;
import io.redeq.redis.RedisJobStore;
import io.redeq.redis.ScriptRunner;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lease keeper against a real Redis whose replies the test holds back with
 * {@code CLIENT PAUSE WRITE}, so a job can finish between a renewal's request and its
 * reply.
 */
@RedisTest
class LeaseKeeperIntegrationTests {

	private static final String TOPIC = "leased";

	private final RedisClient lettuce;

	LeaseKeeperIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@Test
	void warnsOfALostLeaseOnlyForAJobStillRunningWhenTheReplyArrives() {
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
		LeaseKeeper keeper = new LeaseKeeper(store, Duration.ofMillis(300), running);
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

			await().atMost(Duration.ofSeconds(5)).until(() -> mentions(warnings, stillRunning.id()));
			assertThat(mentions(warnings, finished.id())).as("a warning for the job that had finished").isFalse();
		}
		finally {
			keeper.stop();
			timers.shutdownNow();
			connections.close();
			((Logger) LoggerFactory.getLogger(LeaseKeeper.class)).detachAppender(warnings);
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

	private static boolean mentions(ListAppender<ILoggingEvent> warnings, String id) {
		synchronized (warnings.list) {
			return warnings.list.stream()
				.anyMatch((event) -> event.getLevel() == Level.WARN
						&& event.getFormattedMessage().contains("'" + id + "'"));
		}
	}

}
