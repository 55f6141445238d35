package io.redeq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.redeq.internal.EngineAccess;
import io.redeq.test.AclUsers;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * redeq as a Redis ACL user that may touch only its prefix's keys and channels and run
 * only the commands redeq sends (directly, and inside its Lua scripts, which Redis checks
 * against the same ACL). The rules are the ones docs/README-reliability.md documents, for
 * prefix {@code shop}.
 */
@RedisTest
class AclIntegrationTests {

	/**
	 * Key and channel patterns of prefix "shop": plain keys, bucket keys (hash tags),
	 * channels.
	 */
	static final String KEYS = "resetkeys ~shop:* ~{shop:* resetchannels &shop:*";

	/**
	 * Every command redeq sends, and every command its scripts call: with
	 * {@code +fcall +function|load} its hot path runs as functions of its library.
	 */
	static final String COMMANDS = "-@all +hello +auth +ping +evalsha +eval +fcall +function|load +time +wait +hget +hgetall +hset +hsetnx +hmget +hkeys "
			+ "+hscan +hlen +hdel +hexists +hincrby +zadd +zrem +zrange +zrangebyscore +zrevrange "
			+ "+zremrangebyscore +zremrangebyrank +zpopmin +zscore +zmscore +zcard +set +get +del +exists +pexpire +rpush "
			+ "+lpop +blpop +ltrim +publish +subscribe +unsubscribe";

	private final RedisServer server;

	private final RedisClient admin;

	private final List<RedisClient> clients = new ArrayList<>();

	AclIntegrationTests(RedisServer server, RedisClient admin) {
		this.server = server;
		this.admin = admin;
	}

	@BeforeEach
	void createUsers() {
		acl("SETUSER redeq-app reset on >app-secret " + KEYS + " " + COMMANDS);
		// The same commands, but the bucket keys ({shop:...}) are missing from
		// its key patterns.
		acl("SETUSER no-buckets reset on >other-secret resetkeys ~shop:* resetchannels &shop:* " + COMMANDS);
		// The keys, but no scripts.
		acl("SETUSER no-scripts reset on >third-secret " + KEYS + " "
				+ COMMANDS.replace("+evalsha +eval +fcall +function|load ", ""));
		try (StatefulRedisConnection<String, String> connection = this.admin.connect()) {
			connection.sync().aclLogReset();
		}
	}

	@AfterEach
	void closeClients() {
		this.clients.forEach((client) -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
	}

	private void acl(String rules) {
		AclUsers.acl(this.admin, rules);
	}

	private RedisClient clientAs(String user, String password) {
		RedisClient client = RedisClient.create(AclUsers.uriAs(this.server, user, password));
		this.clients.add(client);
		return client;
	}

	@Test
	void everyOperationWorksAsTheRestrictedUser() {
		Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		AtomicBoolean healed = new AtomicBoolean();
		try (Redeq redeq = Redeq.builder(clientAs("redeq-app", "app-secret"))
			.prefix("shop")
			.maxAttempts(2)
			.backoff(new Backoff(Duration.ofMillis(50), 2.0, Duration.ofSeconds(1), 0.0))
			.build()) {
			RedeqClient jobs = redeq.client();
			RedeqAdmin admin = redeq.admin();
			String cancelled = jobs.schedule("mail", "x", Duration.ofHours(1));
			assertThat(jobs.find("mail", cancelled)).isPresent();
			assertThat(jobs.cancel("mail", cancelled)).isTrue();
			jobs.schedule(Job.builder("mail").id("moved").payload("moved").delay(Duration.ofHours(1)).build());
			assertThat(jobs.reschedule("mail", "moved", Duration.ofMillis(100))).isTrue();

			redeq.subscribe("mail", String.class, (payload, delivery) -> {
				deliveries.computeIfAbsent(delivery.id(), (id) -> new AtomicInteger()).incrementAndGet();
				if (payload.equals("flaky") && delivery.attempt() == 1) {
					throw new IllegalStateException("flaky fails once");
				}
				if (payload.equals("poison") && !healed.get()) {
					throw new IllegalStateException("poison always fails");
				}
			});
			List<Job> batch = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				batch.add(Job.builder("mail").id("ok-" + i).payload("ok").delay(Duration.ofMillis(i * 5)).build());
			}
			jobs.scheduleAll(batch);
			jobs.schedule(Job.builder("mail").id("flaky").payload("flaky").build());
			jobs.schedule(Job.builder("mail").id("poison").payload("poison").build());
			await().atMost(Duration.ofSeconds(20))
				.until(() -> deliveries.size() == 53 && admin.stats("mail").dead() == 1);
			assertThat(deliveries.get("flaky")).hasValue(2);
			assertThat(admin.deadJobs("mail", 0, 10)).singleElement()
				.satisfies((dead) -> assertThat(dead.lastError()).contains("poison always fails"));
			assertThat(admin.topics()).containsExactly("mail");
			assertThat(admin.jobs("mail", JobState.DEAD, 0, 10)).extracting(JobView::id).containsExactly("poison");
			assertThat(admin.jobs("mail", JobState.DELAYED, 0, 10)).isEmpty();
			assertThat(admin.job("mail", "poison")).isPresent();
			EngineAccess.history(redeq).flush();
			assertThat(redeq.history().lastMinutes("mail", 5).total(HistoryKind.DEAD)).isEqualTo(1);
			healed.set(true);
			assertThat(admin.requeueDead("mail", "poison")).isTrue();
			await().atMost(Duration.ofSeconds(10)).until(() -> deliveries.get("poison").get() == 3);
			await().atMost(Duration.ofSeconds(5)).until(() -> admin.stats("mail").pending() == 0);
			assertThat(admin.purgeDead("mail")).isZero();
			assertThat(redeq.refreshSnapshot()).isNotNull();
			// Instances: the heartbeat set and each instance's description (SET
			// PX, GET, DEL).
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(admin.instances()).singleElement()
					.satisfies((instance) -> assertThat(instance.listeners()).extracting(InstanceInfo.Listener::topic)
						.containsExactly("mail")));

			// Topic controls: the paused hash, the rate limiter's keys and the scripts.
			admin.pause("mail");
			assertThat(admin.isPaused("mail")).isTrue();
			assertThat(redeq.refreshSnapshot().pausedTopics()).containsExactly("mail");
			admin.resume("mail");
			jobs.schedule(Job.builder("mail")
				.id("later")
				.payload("ok")
				.delay(Duration.ofHours(1))
				.priority(3)
				.timeout(Duration.ofSeconds(5))
				.maxAttempts(1)
				.build());
			assertThat(admin.promote("mail", "later")).isTrue();
			redeq.subscribe("sms", String.class,
					(payload, delivery) -> deliveries
						.computeIfAbsent("sms-" + delivery.id(), (id) -> new AtomicInteger())
						.incrementAndGet(),
					SubscriptionOptions.builder().rateLimit(5, Duration.ofSeconds(1)).build());
			for (int i = 0; i < 3; i++) {
				jobs.schedule(Job.builder("sms").id("s-" + i).payload("hi").build());
			}
			await().atMost(Duration.ofSeconds(15))
				.until(() -> deliveries.containsKey("later") && deliveries.containsKey("sms-s-0")
						&& deliveries.containsKey("sms-s-1") && deliveries.containsKey("sms-s-2"));

			// Bulk removal: cancel-all (its answer kept with SET PX) and purge steps.
			List<Job> bulk = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				bulk.add(Job.builder("sweep").id("b-" + i).payload("x").delay(Duration.ofHours(1)).build());
			}
			jobs.scheduleAll(bulk);
			assertThat(jobs.cancelAll("sweep", List.of("b-0", "b-1", "b-2"))).isEqualTo(3);
			assertThat(admin.purge("sweep", JobState.DELAYED)).isEqualTo(3);
		}
		try (StatefulRedisConnection<String, String> connection = this.admin.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			// Nothing was denied: no command, key or channel outside the rules.
			assertThat(redis.aclLog()).as("ACL LOG").isEmpty();
			// And redeq wrote only under its prefix.
			assertThat(redis.keys("*")).isNotEmpty()
				.allMatch((key) -> key.startsWith("shop:") || key.startsWith("{shop:"));
		}
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "no-buckets, other-secret", "no-scripts, third-secret" })
	void aUserWithoutTheKeysOrCommandsRedeqNeedsGetsAClearError(String user, String password) {
		// Both fail when the engine starts: without the bucket keys it cannot look for
		// jobs of earlier data formats there, without EVALSHA it cannot record the data
		// format (a script). The schedule is never reached.
		assertThatExceptionOfType(RedeqException.class).isThrownBy(() -> {
			try (Redeq redeq = Redeq.builder(clientAs(user, password)).prefix("shop").migratorEnabled(false).build()) {
				redeq.client().schedule("mail", "x", Duration.ofMinutes(1));
			}
		}).withMessageContaining("Redis rejected").withMessageContaining("NOPERM");
	}

}
