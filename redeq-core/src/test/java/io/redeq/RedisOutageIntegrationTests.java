package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
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

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.RedisServer;
import io.redeq.test.TcpPorts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Redis going away: a restart under load (AOF, fsync always) loses no accepted job and
 * needs no application restart; completions Redis refuses for a while are retried, so no
 * succeeded job runs again; an application started before Redis works once Redis is up,
 * and a schedule meanwhile fails within the command timeout instead of hanging.
 */
class RedisOutageIntegrationTests {

	@Test
	void aRedisRestartUnderLoadLosesNoAcceptedJob() {
		try (RedisServer server = new RedisServer().withAppendOnly().start()) {
			RedisClient lettuce = RedisClient.create(server.uri());
			Set<String> accepted = ConcurrentHashMap.newKeySet();
			Set<String> completed = ConcurrentHashMap.newKeySet();
			List<Integer> refused = new ArrayList<>();
			try (Redeq redeq = Redeq.builder(lettuce).commandTimeout(Duration.ofSeconds(2)).build()) {
				// A claim whose reply the outage swallowed leaves its job IN_FLIGHT until
				// the lease expires; a short lease keeps that recovery inside
				// the test's time.
				redeq.subscribe("survives", Integer.class, (n, delivery) -> completed.add(delivery.id()),
						SubscriptionOptions.builder().concurrency(4).lease(Duration.ofSeconds(3)).build());
				for (int round = 0; round < 40; round++) {
					if (round == 15) {
						server.stop();
					}
					if (round == 20) {
						server.start();
					}
					List<Job> batch = new ArrayList<>();
					for (int i = 0; i < 50; i++) {
						batch.add(Job.builder("survives")
							.id(round + "-" + i)
							.payload(i)
							.delay(Duration.ofMillis(i * 10L))
							.build());
					}
					try {
						accepted.addAll(redeq.client().scheduleAll(batch));
					}
					catch (RedeqUnavailableException ex) {
						refused.add(round);
					}
				}
				// Refused while Redis was down and until Lettuce's reconnect backoff
				// found it again; from then on every call goes through with no restart
				// of the application.
				assertThat(refused).as("rounds refused").isNotEmpty().allMatch((round) -> round >= 15 && round < 30);
				await().atMost(Duration.ofSeconds(60)).until(() -> completed.containsAll(accepted));
				await().atMost(Duration.ofSeconds(10)).until(() -> redeq.admin().stats("survives").pending() == 0);
			}
			finally {
				lettuce.shutdown();
			}
			assertThat(accepted).hasSizeGreaterThanOrEqualTo(25 * 50);
		}
	}

	@Test
	void completionsRedisRefusedAreRetriedAndNoSucceededJobRunsAgain() {
		ListAppender<ILoggingEvent> consumerLogs = new ListAppender<>();
		consumerLogs.start();
		Logger consumerLogger = (Logger) LoggerFactory.getLogger("io.redeq.internal.consumer");
		consumerLogger.addAppender(consumerLogs);
		try (RedisServer server = new RedisServer().start()) {
			RedisClient lettuce = RedisClient.create(server.uri());
			Map<String, Integer> runs = new ConcurrentHashMap<>();
			CountDownLatch finish = new CountDownLatch(1);
			try (Redeq redeq = Redeq.builder(lettuce).commandTimeout(Duration.ofSeconds(2)).build();
					StatefulRedisConnection<String, String> admin = lettuce.connect()) {
				// A lease long enough to outlast the refusal: only a completion that is
				// given up can make a job run again.
				redeq.subscribe("acked", Integer.class, (n, delivery) -> {
					runs.merge(delivery.id(), 1, Integer::sum);
					finish.await(30, TimeUnit.SECONDS);
				}, SubscriptionOptions.builder().concurrency(4).lease(Duration.ofSeconds(4)).build());
				List<Job> jobs = new ArrayList<>();
				for (int i = 0; i < 4; i++) {
					jobs.add(Job.builder("acked").id("a" + i).payload(i).build());
				}
				redeq.client().scheduleAll(jobs);
				await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() == 4);

				// A failover in miniature: the server becomes the replica of a master
				// that is not there, so it keeps its data but refuses
				// every write (READONLY).
				admin.sync().replicaof("127.0.0.1", TcpPorts.freePort());
				try {
					finish.countDown();
					await().atMost(Duration.ofSeconds(10)).until(() -> warned(consumerLogs, "could not store"));
				}
				finally {
					admin.sync().replicaofNoOne();
				}

				await().atMost(Duration.ofSeconds(30)).until(() -> redeq.admin().stats("acked").pending() == 0);
				assertThat(runs).as("handler runs per job")
					.hasSize(4)
					.allSatisfy((id, count) -> assertThat(count).isOne());
			}
			finally {
				finish.countDown();
				lettuce.shutdown();
			}
		}
		finally {
			consumerLogger.detachAppender(consumerLogs);
		}
	}

	@Test
	void closingWhileRedisDoesNotAnswerTakesBoundedTime() throws Exception {
		try (RedisServer server = new RedisServer().start()) {
			RedisClient lettuce = RedisClient.create(server.uri());
			CountDownLatch handlersRun = new CountDownLatch(16);
			try (Redeq redeq = Redeq.builder(lettuce)
				.commandTimeout(Duration.ofSeconds(1))
				.shutdownTimeout(Duration.ofMillis(500))
				.build(); StatefulRedisConnection<String, String> admin = lettuce.connect()) {
				Subscription subscription = redeq.subscribe("stuck", Integer.class, (n, delivery) -> {
					handlersRun.countDown();
					new CountDownLatch(1).await(); // until interrupted on close
				}, SubscriptionOptions.builder().concurrency(16).build());
				// One running job in every bucket: each is handed back by its own script.
				KeySpace keys = new KeySpace(redeq.options().prefix(), redeq.options().buckets());
				Map<Integer, Job> onePerBucket = new java.util.TreeMap<>();
				for (int i = 0; i < 10_000 && onePerBucket.size() < keys.buckets(); i++) {
					onePerBucket.putIfAbsent(keys.bucketOf(KeySpace.jobKey("stuck", "s" + i)),
							Job.builder("stuck").id("s" + i).payload(i).build());
				}
				try (Redeq scheduler = Redeq.builder(lettuce).migratorEnabled(false).build()) {
					// the default command timeout: scheduling is not what this test times
					scheduler.client().scheduleAll(List.copyOf(onePerBucket.values()));
				}
				assertThat(handlersRun.await(10, TimeUnit.SECONDS)).isTrue();

				pauseWrites(admin);
				try {
					long start = System.nanoTime();
					subscription.close();
					// The shutdown timeout, then a command timeout or two (the fetcher's
					// claim, the first hand-back that gets no answer), not
					// one per bucket.
					assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(8));
				}
				finally {
					admin.sync()
						.dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
								new CommandArgs<>(StringCodec.UTF8).add("UNPAUSE"));
				}
			}
			finally {
				lettuce.shutdown();
			}
		}
	}

	/** Holds back every write and script until CLIENT UNPAUSE (or 60 s). */
	private static void pauseWrites(StatefulRedisConnection<String, String> admin) {
		admin.sync()
			.dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
					new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(60_000).add("WRITE"));
	}

	private static boolean warned(ListAppender<ILoggingEvent> logs, String text) {
		synchronized (logs.list) {
			return logs.list.stream()
				.anyMatch((event) -> event.getLevel() == Level.WARN && event.getFormattedMessage().contains(text));
		}
	}

	@Test
	void anApplicationStartedBeforeRedisWorksOnceRedisIsUp() {
		RedisServer server = new RedisServer().start();
		server.stop(); // keeps its port: Redis is simply not there yet
		RedisClient lettuce = RedisClient.create(server.uri());
		Set<String> completed = ConcurrentHashMap.newKeySet();
		try (Redeq redeq = Redeq.builder(lettuce).commandTimeout(Duration.ofSeconds(1)).build()) {
			redeq.subscribe("late", String.class, (payload, delivery) -> completed.add(payload));

			long start = System.nanoTime();
			assertThatExceptionOfType(RedeqUnavailableException.class)
				.isThrownBy(() -> redeq.client().schedule("late", "too early", Duration.ZERO))
				.withMessageContaining("Redis");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
			assertThat(redeq.refreshSnapshot().redisReachable()).isFalse();

			server.start();
			await().atMost(Duration.ofSeconds(10))
				.ignoreExceptions()
				.until(() -> redeq.client().schedule("late", "on time", Duration.ZERO) != null);
			await().atMost(Duration.ofSeconds(15)).until(() -> completed.contains("on time"));
			assertThat(redeq.refreshSnapshot().redisReachable()).isTrue();
		}
		finally {
			lettuce.shutdown();
			server.close();
		}
	}

}
