package io.redeq.internal.redis.script;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.FlushMode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.Duplicate;
import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.SubscriptionOptions;
import io.redeq.TopicStats;
import io.redeq.internal.redis.ClaimedJob;
import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.ScheduleRequest;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.test.AclUsers;
import io.redeq.test.CommandStats;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The hot path's scripts as functions of redeq's library on a real redis-server: they run
 * as functions once the library is loaded, Redis losing the library costs no call, a call
 * starts with nothing left of the one before, and where Redis cannot have the library
 * (ACL) the scripts go by EVALSHA.
 */
@RedisTest
class FunctionLibraryIntegrationTests {

	private static final int BUCKET = 5;

	private final RedisServer server;

	private final RedisClient lettuce;

	private final KeySpace keys = new KeySpace("redeq", 16);

	private RedisConnections connections;

	private final List<RedisClient> clients = new ArrayList<>();

	FunctionLibraryIntegrationTests(RedisServer server, RedisClient lettuce) {
		this.server = server;
		this.lettuce = lettuce;
	}

	@BeforeEach
	void forgetTheLibrary() {
		redis((redis) -> redis.functionFlush(FlushMode.SYNC));
	}

	@AfterEach
	void close() {
		if (this.connections != null) {
			this.connections.close();
		}
		this.clients.forEach((client) -> client.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
	}

	@Test
	void scheduleHandOffAndCompletionRunAsFunctionsOnceTheLibraryIsLoaded() {
		ScriptRunner runner = runnerOn(this.lettuce);
		RedisJobStore store = new RedisJobStore(this.keys, runner);
		// The first call goes by EVALSHA and starts loading the library.
		assertThat(scheduleNow(store, "first")).isNotEmpty();
		await().atMost(Duration.ofSeconds(10)).until(runner::callsFunctions);
		assertThat(libraries()).containsExactly(Scripts.LIBRARY.name());

		// A claim of nothing caches the claim script, which is not in the library: the
		// claim below then costs one EVALSHA, whatever ran on this server before (a first
		// EVALSHA that Redis answers NOSCRIPT is followed by an EVAL).
		assertThat(store.scripts().await(store.claim(BUCKET, "fn", 1, 30_000, "inst:c:0", 3), "claim").jobs())
			.isEmpty();
		long functionCalls = calls("fcall");
		long scriptCalls = calls("evalsha") + calls("eval");
		assertThat(scheduleNow(store, "second")).isNotEmpty();
		assertThat(store.migrate(BUCKET, 100, false, "", 10_000, 0).migrated()).isEqualTo(2);
		List<ClaimedJob> claimed = store.scripts()
			.await(store.claim(BUCKET, "fn", 2, 30_000, "inst:c:1", 3), "claim")
			.jobs();
		assertThat(claimed).extracting(ClaimedJob::id).containsExactlyInAnyOrder("first", "second");
		assertThat(store.scripts().await(store.completeAll(BUCKET, claimed), "complete")).containsExactly(true, true);

		assertThat(calls("fcall") - functionCalls).as("schedule, migrate, complete").isEqualTo(3);
		assertThat(calls("evalsha") + calls("eval") - scriptCalls).as("claim, not in the library").isEqualTo(1);
		assertThat(hash(this.keys.countKey(BUCKET), "fn")).as("pending count").isEqualTo("0");
		assertThat(length(this.keys.payloadKey(BUCKET))).isZero();
	}

	@Test
	void aServerThatLostTheLibraryStillAnswersEveryCallAndGetsItBack() {
		RedisJobStore store = storeWithTheLibraryLoaded(this.lettuce, "before");
		ScriptRunner runner = store.scripts();

		// As after a restart without persistence, or an operator's FUNCTION FLUSH.
		redis((redis) -> redis.functionFlush(FlushMode.SYNC));
		assertThat(scheduleNow(store, "after")).as("the call that met no library").isNotEmpty();
		assertThat(store.migrate(BUCKET, 100, false, "", 10_000, 0).migrated()).isEqualTo(2);

		await().atMost(Duration.ofSeconds(10)).until(() -> {
			scheduleNow(store, "later");
			return runner.callsFunctions() && libraries().contains(Scripts.LIBRARY.name());
		});
		assertThat(hash(this.keys.countKey(BUCKET), "fn")).as("pending count").isEqualTo("3");
	}

	/**
	 * Counter changes live in the library between calls: a call that fails after counting
	 * must leave nothing for the next call to write.
	 */
	@Test
	void aFunctionCallStartsWithNothingLeftOfAFailedCall() {
		RedisJobStore store = storeWithTheLibraryLoaded(this.lettuce, "done");
		store.migrate(BUCKET, 100, false, "", 10_000, 0);
		ClaimedJob job = store.scripts()
			.await(store.claim(BUCKET, "fn", 1, 30_000, "inst:c:2", 3), "claim")
			.jobs()
			.get(0);

		// complete counts the finished job, then refuses a claim for a topic it was
		// not given, before writing anything.
		String[] bucketKeys = this.keys.jobScriptKeys(BUCKET, List.of("fn"));
		String complete = Scripts.LIBRARY.functionOf(Scripts.COMPLETE);
		assertThatThrownBy(() -> redis((redis) -> redis.fcall(complete, ScriptOutputType.MULTI, bucketKeys, "fn", "6",
				"other", "1", "30000", "inst:c:3", "3", "60000", job.jobKey(), job.token())))
			.isInstanceOf(RedisCommandExecutionException.class)
			.hasMessageContaining("a claim needs its topic declared");
		assertThat(hash(this.keys.countKey(BUCKET), "fn")).as("pending count after the refused call").isEqualTo("1");

		scheduleNow(store, "next");
		assertThat(hash(this.keys.countKey(BUCKET), "fn")).as("pending count after the next call").isEqualTo("2");
	}

	@Test
	void jobsRunAsFunctionsThroughTheEngine() {
		Set<String> handled = ConcurrentHashMap.newKeySet();
		AtomicInteger runs = new AtomicInteger();
		AtomicInteger scheduled = new AtomicInteger();
		try (Redeq redeq = Redeq.builder(this.lettuce).prefix("fnengine").build()) {
			redeq.subscribe("fn", String.class, (payload, delivery) -> {
				runs.incrementAndGet();
				handled.add(delivery.id());
			}, SubscriptionOptions.builder().concurrency(2).build());
			long before = calls("fcall");
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				redeq.client().schedule(Job.builder("fn").id("j" + scheduled.incrementAndGet()).payload("x").build());
				return calls("fcall") > before;
			});
			for (int i = 0; i < 50; i++) {
				redeq.client().schedule(Job.builder("fn").id("j" + scheduled.incrementAndGet()).payload("x").build());
			}
			await().atMost(Duration.ofSeconds(20))
				.until(() -> handled.size() == scheduled.get()
						&& redeq.admin().stats("fn").equals(new TopicStats("fn", 0, 0, 0, 0)));
			assertThat(runs.get()).as("each job ran once").isEqualTo(scheduled.get());
			assertThat(calls("fcall") - before).as("function calls, 50 schedules among them").isGreaterThan(50);
		}
	}

	@Test
	void withoutFunctionLoadInItsAclRedeqKeepsToEvalsha() {
		acl("SETUSER no-functions reset on >fn-secret ~* &* +@all -function");
		ScriptRunner runner = runnerOn(clientAs("no-functions", "fn-secret"));
		RedisJobStore store = new RedisJobStore(this.keys, runner);
		long functionCalls = calls("fcall");
		scheduleNow(store, "a");
		await().atMost(Duration.ofSeconds(10)).until(() -> runner.functions().gaveUp());
		scheduleNow(store, "b");
		assertThat(store.migrate(BUCKET, 100, false, "", 10_000, 0).migrated()).isEqualTo(2);
		assertThat(runner.callsFunctions()).isFalse();
		assertThat(calls("fcall")).isEqualTo(functionCalls);
		assertThat(libraries()).isEmpty();
	}

	@Test
	void withoutFcallInItsAclTheCallsTheLibraryRefusesGoByEvalsha() {
		acl("SETUSER no-fcall reset on >fcall-secret ~* &* +@all -fcall");
		RedisJobStore store = storeWithTheLibraryLoaded(clientAs("no-fcall", "fcall-secret"), "a");
		ScriptRunner runner = store.scripts();

		assertThat(scheduleNow(store, "b")).as("the call FCALL was refused for").isNotEmpty();
		assertThat(runner.functions().gaveUp()).isTrue();
		assertThat(store.migrate(BUCKET, 100, false, "", 10_000, 0).migrated()).isEqualTo(2);
		assertThat(hash(this.keys.countKey(BUCKET), "fn")).as("pending count").isEqualTo("2");
	}

	/**
	 * When Redis is out of memory, schedule is refused before it runs, while migrate and
	 * complete still run: due jobs reach consumers and finished jobs free their memory.
	 */
	@Test
	void outOfMemoryRedisRefusesNewJobsButStillMovesAndCompletesThem() {
		RedisJobStore store = storeWithTheLibraryLoaded(this.lettuce, "running");
		ScriptRunner runner = store.scripts();
		store.migrate(BUCKET, 100, false, "", 10_000, 0);
		ClaimedJob running = store.scripts()
			.await(store.claim(BUCKET, "fn", 1, 30_000, "inst:c:oom", 3), "claim")
			.jobs()
			.get(0);
		scheduleNow(store, "due");
		redis((redis) -> redis.configSet("maxmemory", "1"));
		try {
			assertThatThrownBy(() -> scheduleNow(store, "refused")).hasMessageContaining("OOM");
			assertThat(store.migrate(BUCKET, 100, false, "", 10_000, 0).migrated()).as("due job moved").isEqualTo(1);
			assertThat(store.scripts().await(store.completeAll(BUCKET, List.of(running)), "complete"))
				.containsExactly(true);
		}
		finally {
			redis((redis) -> redis.configSet("maxmemory", "0"));
		}
		assertThat(hash(this.keys.countKey(BUCKET), "fn")).as("pending count: the due job").isEqualTo("1");
		assertThat(runner.callsFunctions()).isTrue();
	}

	/**
	 * Redis out of memory refuses FUNCTION LOAD for a while: redeq loads the library once
	 * it takes writes again, rather than keeping to EVALSHA for good.
	 */
	@Test
	void aLibraryRefusedWhileRedisIsOutOfMemoryIsLoadedOnceItTakesWritesAgain() {
		ScriptRunner runner = runnerOn(this.lettuce);
		RedisJobStore store = new RedisJobStore(this.keys, runner);
		redis((redis) -> redis.configSet("maxmemory", "1"));
		try {
			// The first call starts loading the library, which Redis refuses.
			assertThatThrownBy(() -> scheduleNow(store, "refused")).hasMessageContaining("OOM");
			await().atMost(Duration.ofSeconds(10)).until(() -> rejectedFunctionLoads() > 0);
		}
		finally {
			redis((redis) -> redis.configSet("maxmemory", "0"));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			scheduleNow(store, "later");
			return runner.callsFunctions();
		});
		assertThat(runner.functions().gaveUp()).isFalse();
		assertThat(libraries()).containsExactly(Scripts.LIBRARY.name());
	}

	/**
	 * A command refused inside a function fails the call after the function's earlier
	 * writes: that call is not sent again by EVALSHA, which would run it twice.
	 */
	@Test
	void aCommandRefusedInsideAFunctionFailsTheCallWithoutRunningItAgain() {
		acl("SETUSER no-zadd reset on >zadd-secret ~* &* +@all -zadd");
		ScriptRunner runner = runnerOn(clientAs("no-zadd", "zadd-secret"));
		RedisJobStore store = new RedisJobStore(this.keys, runner);
		assertThatThrownBy(() -> scheduleNow(store, "a")).hasMessageContaining("can't run this command");
		await().atMost(Duration.ofSeconds(10)).until(runner::callsFunctions);
		long scriptCalls = calls("evalsha") + calls("eval");
		long functionCalls = calls("fcall");

		assertThatThrownBy(() -> scheduleNow(store, "b")).hasMessageContaining("can't run this command")
			.hasMessageContaining("@user_function");
		assertThat(calls("fcall") - functionCalls).isEqualTo(1);
		assertThat(calls("evalsha") + calls("eval")).as("sent again by EVALSHA").isEqualTo(scriptCalls);
		assertThat(runner.callsFunctions()).as("still calls its functions").isTrue();
	}

	/**
	 * A job store whose runner has loaded the library, after scheduling one job of topic
	 * "fn" by EVALSHA (the call that starts the loading).
	 */
	private RedisJobStore storeWithTheLibraryLoaded(RedisClient client, String firstId) {
		ScriptRunner runner = runnerOn(client);
		RedisJobStore store = new RedisJobStore(this.keys, runner);
		scheduleNow(store, firstId);
		await().atMost(Duration.ofSeconds(10)).until(runner::callsFunctions);
		return store;
	}

	private ScriptRunner runnerOn(RedisClient client) {
		this.connections = new RedisConnections(client);
		return new ScriptRunner(this.connections, Duration.ofSeconds(10));
	}

	/** Schedules a job of topic "fn" due now into the test's bucket; returns its key. */
	private String scheduleNow(RedisJobStore store, String id) {
		String jobKey = KeySpace.jobKey("fn", id);
		store.scripts()
			.await(store.schedule(BUCKET, 0,
					List.of(new ScheduleRequest(jobKey, "\"payload\"", false, 0, Duplicate.REPLACE))), "schedule");
		return jobKey;
	}

	private Set<String> libraries() {
		return redis((redis) -> {
			Set<String> names = new TreeSet<>();
			for (Map<String, Object> library : redis.functionList()) {
				names.add(String.valueOf(library.get("library_name")));
			}
			return names;
		});
	}

	private long calls(String command) {
		return CommandStats.calls(this.lettuce, command::equals);
	}

	/** FUNCTION LOAD calls Redis refused before running them (out of memory, say). */
	private long rejectedFunctionLoads() {
		String stats = redis((redis) -> redis.info("commandstats"));
		Matcher rejected = Pattern.compile("cmdstat_function\\|load:.*rejected_calls=(\\d+)").matcher(stats);
		return rejected.find() ? Long.parseLong(rejected.group(1)) : 0;
	}

	private String hash(String key, String field) {
		return redis((redis) -> redis.hget(key, field));
	}

	private long length(String key) {
		return redis((redis) -> redis.hlen(key));
	}

	private void acl(String rules) {
		AclUsers.acl(this.lettuce, rules);
	}

	private RedisClient clientAs(String user, String password) {
		RedisClient client = RedisClient.create(AclUsers.uriAs(this.server, user, password));
		this.clients.add(client);
		return client;
	}

	private <T> T redis(Function<RedisCommands<String, String>, T> command) {
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			return command.apply(connection.sync());
		}
	}

}
