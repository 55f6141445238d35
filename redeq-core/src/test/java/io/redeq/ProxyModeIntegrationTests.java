package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.protocol.CommandArgs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.test.AclUsers;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Proxy mode ({@code redeq.redis.proxy-mode}) as a Redis ACL user that, like a client of
 * Codis or Twemproxy, may not use pub/sub or any blocking command: every operation works,
 * jobs are on time within the sweep and poll intervals, and Redis refused nothing (its
 * ACL LOG, which records every denied command, also inside a Lua script, stays empty).
 */
@RedisTest
class ProxyModeIntegrationTests {

	/** redeq's keys, and no pub/sub channel at all. */
	static final String KEYS = AclIntegrationTests.KEYS.replace(" &shop:*", "");

	/** The commands redeq may send, without any that blocks or is pub/sub. */
	static final String COMMANDS = AclIntegrationTests.COMMANDS.replace(" +blpop", "")
		.replace(" +publish +subscribe +unsubscribe", "") + " -@blocking -@pubsub";

	private static final Duration SWEEP = Duration.ofMillis(500);

	private static final Duration POLL = Duration.ofMillis(500);

	/**
	 * Longest lateness accepted: a job another instance schedules waits at most a sweep
	 * for the migrator, then at most a poll for a consumer; plus a second for a loaded
	 * test machine.
	 */
	private static final Duration LATENESS_LIMIT = SWEEP.plus(POLL).plusSeconds(1);

	private final RedisServer server;

	private final RedisClient admin;

	private final List<RedisClient> clients = new ArrayList<>();

	private final OneSlotPerCommand slots = new OneSlotPerCommand();

	ProxyModeIntegrationTests(RedisServer server, RedisClient admin) {
		this.server = server;
		this.admin = admin;
	}

	@BeforeEach
	void createUser() {
		acl("SETUSER proxied reset on >proxy-secret " + KEYS + " " + COMMANDS);
		try (StatefulRedisConnection<String, String> connection = this.admin.connect()) {
			connection.sync().aclLogReset();
		}
	}

	@AfterEach
	void closeClients() {
		this.clients.forEach((client) -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
	}

	@Test
	void theUserIsDeniedPubSubAndBlockingCommandsAlsoInsideScriptsAndRedisLogsEachDenial() {
		try (StatefulRedisConnection<String, String> connection = clientAs("proxied", "proxy-secret").connect()) {
			RedisCommands<String, String> redis = connection.sync();
			assertThatExceptionOfType(RedisException.class).isThrownBy(() -> redis.publish("shop:wake", "1"))
				.withMessageContaining("NOPERM");
			assertThatExceptionOfType(RedisException.class).isThrownBy(() -> redis.blpop(0.01, "shop:signal"))
				.withMessageContaining("NOPERM");
			assertThatExceptionOfType(RedisException.class)
				.isThrownBy(
						() -> redis.eval("return redis.call('PUBLISH', 'shop:wake', '1')", ScriptOutputType.INTEGER))
				.withMessageContaining("can't run this command");
		}
		try (StatefulRedisConnection<String, String> connection = this.admin.connect()) {
			// So an empty ACL LOG after a run means redeq sent none of them, not even
			// from a script.
			assertThat(connection.sync().aclLog()).hasSize(3)
				.anySatisfy(
						(entry) -> assertThat(entry).containsEntry("context", "lua").containsEntry("object", "publish"))
				.anySatisfy((entry) -> assertThat(entry).containsEntry("object", "blpop"));
		}
	}

	@Test
	void everyOperationWorksOnTimeWithoutPubSubOrBlockingCommands() {
		Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		Map<String, Duration> lateness = new ConcurrentHashMap<>();
		AtomicBoolean healed = new AtomicBoolean();
		// One instance migrates and schedules; the other consumes and schedules, and
		// migrates nothing: its jobs reach the migrator only through its timers and
		// sweep, and the consumer hears of them only by polling.
		try (Redeq migrating = proxied().build(); Redeq consuming = proxied().migratorEnabled(false).build()) {
			consuming.subscribe("mail", String.class, (payload, delivery) -> {
				if (delivery.attempt() == 1) {
					lateness.put(delivery.id(), Duration.between(delivery.dueAt(), Instant.now()));
				}
				deliveries.computeIfAbsent(delivery.id(), (id) -> new AtomicInteger()).incrementAndGet();
				if (payload.equals("flaky") && delivery.attempt() == 1) {
					throw new IllegalStateException("flaky fails once");
				}
				if (payload.equals("poison") && !healed.get()) {
					throw new IllegalStateException("poison always fails");
				}
			});
			RedeqClient jobs = consuming.client();
			String cancelled = jobs.schedule("mail", "x", Duration.ofHours(1));
			assertThat(jobs.cancel("mail", cancelled)).isTrue();
			jobs.schedule(Job.builder("mail").id("moved").payload("ok").delay(Duration.ofHours(1)).build());
			assertThat(jobs.reschedule("mail", "moved", Duration.ofMillis(300))).isTrue();
			for (int i = 0; i < 40; i++) {
				RedeqClient scheduler = (i % 2 == 0) ? jobs : migrating.client();
				scheduler.schedule(
						Job.builder("mail").id("ok-" + i).payload("ok").delay(Duration.ofMillis(200 + i * 25)).build());
			}
			jobs.schedule(Job.builder("mail").id("flaky").payload("flaky").delay(Duration.ofMillis(200)).build());
			jobs.schedule(Job.builder("mail").id("poison").payload("poison").delay(Duration.ofMillis(200)).build());
			RedeqAdmin admin = consuming.admin();
			await().atMost(Duration.ofSeconds(30))
				.until(() -> deliveries.size() == 43 && admin.stats("mail").dead() == 1);
			assertThat(deliveries.get("flaky")).hasValue(2);
			assertThat(admin.deadJobs("mail", 0, 10)).singleElement()
				.satisfies((dead) -> assertThat(dead.lastError()).contains("poison always fails"));
			healed.set(true);
			assertThat(admin.requeueDead("mail", "poison")).isTrue();
			await().atMost(Duration.ofSeconds(10)).until(() -> deliveries.get("poison").get() == 3);
			await().atMost(Duration.ofSeconds(10)).until(() -> admin.stats("mail").pending() == 0);
		}
		assertThat(lateness).hasSize(43)
			.allSatisfy((id, late) -> assertThat(late).as("lateness of " + id).isLessThan(LATENESS_LIMIT));
		try (StatefulRedisConnection<String, String> connection = this.admin.connect()) {
			assertThat(connection.sync().aclLog()).as("ACL LOG").isEmpty();
		}
		// A proxy shards by key: no script or command may name keys of two buckets,
		// including the sweep and the consumers' check for ready jobs.
		assertThat(this.slots.keyed()).isGreaterThan(100);
		assertThat(this.slots.spanningSlots()).isEmpty();
	}

	@Test
	void aConsumerStartsJobsItsOwnInstanceMigratedWithoutWaitingForAPoll() {
		Map<String, Duration> lateness = new ConcurrentHashMap<>();
		// A poll interval far longer than the test: only the local signal (or the 200 ms
		// look at the signal list) can start these jobs soon.
		try (Redeq redeq = proxied().pollInterval(Duration.ofMinutes(1)).build()) {
			redeq.subscribe("mail", String.class, (payload, delivery) -> lateness.put(delivery.id(),
					Duration.between(delivery.dueAt(), Instant.now())));
			for (int i = 0; i < 40; i++) {
				redeq.client()
					.schedule(Job.builder("mail")
						.id("local-" + i)
						.payload("ok")
						.delay(Duration.ofMillis(300 + i * 23))
						.build());
			}
			await().atMost(Duration.ofSeconds(20)).until(() -> lateness.size() == 40);
		}
		List<Duration> sorted = lateness.values().stream().sorted().toList();
		System.out.printf("[proxy-local-wake] lateness median=%d ms, max=%d ms%n",
				sorted.get(sorted.size() / 2).toMillis(), sorted.get(sorted.size() - 1).toMillis());
		// The median is robust to a loaded machine's hiccups: woken locally it stays well
		// under the bound; left to the 200 ms poll of the signal list, it would not.
		assertThat(sorted.get(sorted.size() / 2)).isLessThan(Duration.ofMillis(90));
		try (StatefulRedisConnection<String, String> connection = this.admin.connect()) {
			assertThat(connection.sync().aclLog()).as("ACL LOG").isEmpty();
		}
	}

	@Test
	void aPollWaitsWithoutBlockingCommandsAndIsWokenByItsOwnMigrator() throws Exception {
		try (Redeq redeq = proxied().pollInterval(Duration.ofMinutes(1)).build()) {
			long start = System.nanoTime();
			CompletableFuture<Optional<PolledJob>> polled = CompletableFuture
				.supplyAsync(() -> redeq.client().poll("report", Duration.ofSeconds(30)));
			redeq.client().schedule(Job.builder("report").id("r").payload("ok").delay(Duration.ofMillis(300)).build());

			PolledJob job = polled.get(20, TimeUnit.SECONDS).orElseThrow();

			// Neither the 30 s wait nor the one-minute poll interval ran out.
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000);
			job.ack();
			assertThat(redeq.client().poll("report", Duration.ofMillis(300))).isEmpty();
			assertThat(redeq.client().find("report", "r")).isEmpty();
		}
		try (StatefulRedisConnection<String, String> connection = this.admin.connect()) {
			assertThat(connection.sync().aclLog()).as("ACL LOG").isEmpty();
		}
	}

	private Redeq.Builder proxied() {
		return Redeq.builder(clientAs("proxied", "proxy-secret"))
			.prefix("shop")
			.proxyMode(true)
			.sweepInterval(SWEEP)
			.pollInterval(POLL)
			.maxAttempts(2)
			.backoff(new Backoff(Duration.ofMillis(50), 2.0, Duration.ofSeconds(1), 0.0));
	}

	private RedisClient clientAs(String user, String password) {
		RedisClient client = RedisClient.create(AclUsers.uriAs(this.server, user, password));
		client.addListener(this.slots);
		this.clients.add(client);
		return client;
	}

	private void acl(String rules) {
		AclUsers.acl(this.admin, rules);
	}

	/**
	 * Records every command whose keys lie in more than one cluster slot: a proxy such as
	 * Codis or Twemproxy routes a command by its key, so such a command would reach keys
	 * on the wrong server.
	 */
	static final class OneSlotPerCommand implements CommandListener {

		private static final Pattern KEY = Pattern.compile("key<([^>]*)>");

		/**
		 * Commands whose every key argument is a key (Lettuce also marks hash fields as
		 * keys, so for the others only the first one is).
		 */
		private static final Set<String> ALL_KEYS = Set.of("EVALSHA", "EVAL", "FCALL", "EXISTS", "DEL", "UNLINK",
				"MGET", "TOUCH");

		private final List<String> spanningSlots = new CopyOnWriteArrayList<>();

		private final AtomicInteger keyed = new AtomicInteger();

		@Override
		public void commandStarted(CommandStartedEvent event) {
			CommandArgs<Object, Object> args = event.getCommand().getArgs();
			if (args == null) {
				return;
			}
			String type = event.getCommand().getType().toString();
			String command = args.toCommandString();
			Set<Integer> slots = new HashSet<>();
			Matcher key = KEY.matcher(command);
			while (key.find() && (slots.isEmpty() || ALL_KEYS.contains(type))) {
				slots.add(SlotHash.getSlot(key.group(1)));
			}
			if (!slots.isEmpty()) {
				this.keyed.incrementAndGet();
			}
			if (slots.size() > 1) {
				this.spanningSlots.add(type + " " + command);
			}
		}

		int keyed() {
			return this.keyed.get();
		}

		List<String> spanningSlots() {
			return this.spanningSlots;
		}

	}

}
