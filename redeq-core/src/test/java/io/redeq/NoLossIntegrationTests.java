package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import io.redeq.internal.JobEvents;
import io.redeq.internal.redis.ClaimResult;
import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.MigrateResult;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptDigests;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.test.FaultProxy;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Paths that lost, stranded or wrongly kept jobs in redeq's first data model, each
 * against a real redis-server. Every test uses a prefix of its own. Lost replies are made
 * by a {@link FaultProxy} between the engine and the server: the command runs in Redis
 * and its answer never reaches the engine.
 */
@RedisTest
class NoLossIntegrationTests {

	private static final JobEvents NO_EVENTS = JobEvents.NONE;

	private final RedisClient lettuce;

	private final RedisServer server;

	NoLossIntegrationTests(RedisClient lettuce, RedisServer server) {
		this.lettuce = lettuce;
		this.server = server;
	}

	/**
	 * One migrate call that makes more jobs READY than Lua can unpack at once (4,000
	 * expired leases and 4,000 due jobs of one topic with batch-size 5000) moves them
	 * all, in chunks, instead of failing after the records were rewritten.
	 */
	@Test
	void oneMigrateCallMovesMoreJobsThanLuaCanUnpackAtOnce() {
		try (Redeq redeq = Redeq.builder(this.lettuce).prefix("unpack").buckets(1).migratorEnabled(false).build();
				RedisConnections connections = new RedisConnections(this.lettuce)) {
			RedisJobStore store = new RedisJobStore(new KeySpace("unpack", 1),
					new ScriptRunner(connections, Duration.ofSeconds(30)));
			redeq.client().scheduleAll(jobs("leased", 4000));
			MigrateResult first = store.migrate(0, 5000, false, "", 10_000, 0);
			assertThat(first.migrated()).isEqualTo(4000);
			ClaimResult claimed = store.scripts()
				.await(store.claim(0, "bulk", 4000, 1, "test:1", 3), "claim with a 1 ms lease");
			assertThat(claimed.jobs()).hasSize(4000);
			redeq.client().scheduleAll(jobs("due", 4000));
			await().atMost(Duration.ofSeconds(5)).until(() -> {
				MigrateResult result = store.migrate(0, 5000, true, "", 10_000, 0);
				return result.migrated() == 4000 && result.reclaimed() == 4000;
			});
			assertThat(redeq.admin().stats("bulk")).isEqualTo(new TopicStats("bulk", 0, 8000, 0, 0));
		}
	}

	private static List<Job> jobs(String prefix, int count) {
		List<Job> jobs = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			jobs.add(Job.builder("bulk").id(prefix + "-" + i).payload(i).build());
		}
		return jobs;
	}

	/**
	 * Due times a script cannot hold exactly (before 1970, after the year 9999, delays
	 * and backoffs near Long.MAX_VALUE ms) are refused at the call, and nothing is
	 * written.
	 */
	@Test
	void dueTimesOutsideTheRepresentableRangeAreRefusedAndNothingIsWritten() {
		try (Redeq redeq = Redeq.builder(this.lettuce).prefix("range").migratorEnabled(false).build()) {
			RedeqClient client = redeq.client();
			assertThatIllegalArgumentException()
				.isThrownBy(() -> client.scheduleAt("t", "x", Instant.parse("1969-12-31T23:59:59Z")))
				.withMessageContaining("1969-12-31T23:59:59Z")
				.withMessageContaining("must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> client.schedule(
						Job.builder("t").id("far").payload("x").dueAt(Instant.ofEpochMilli(Long.MAX_VALUE)).build()))
				.withMessageContaining("must be between");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> client.schedule("t", "x", Duration.ofMillis(Long.MAX_VALUE)))
				.withMessageContaining("must be at most PT8766000H (1000 years)");
			client.schedule(Job.builder("t").id("ok").payload("x").delay(Duration.ofDays(1)).build());
			assertThatIllegalArgumentException()
				.isThrownBy(() -> client.reschedule("t", "ok", Instant.parse("1900-01-01T00:00:00Z")))
				.withMessageContaining("1900-01-01T00:00:00Z");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMillis(Long.MAX_VALUE), 0.2))
				.withMessageContaining("backoff.max must be at most");
			assertThat(redeq.admin().stats("t")).isEqualTo(new TopicStats("t", 1, 0, 0, 0));
			assertThat(client.find("t", "ok"))
				.hasValueSatisfying((info) -> assertThat(info.state()).isEqualTo(JobState.DELAYED));
		}
	}

	/**
	 * Cancelled READY jobs leave nothing behind in the ready sets, so the next real job
	 * is claimed at once, not after thousands of stale entries.
	 */
	@Test
	void cancelledReadyJobsLeaveNoEntriesBehind() {
		KeySpace keys = new KeySpace("stale", 4);
		try (Redeq redeq = Redeq.builder(this.lettuce).prefix("stale").buckets(4).build()) {
			List<Job> jobs = new ArrayList<>();
			for (int i = 0; i < 2000; i++) {
				jobs.add(Job.builder("t").id("c-" + i).payload(i).build());
			}
			redeq.client().scheduleAll(jobs);
			await().atMost(Duration.ofSeconds(10)).until(() -> redeq.admin().stats("t").ready() == 2000);
			for (int i = 0; i < 2000; i++) {
				assertThat(redeq.client().cancel("t", "c-" + i)).isTrue();
			}
			try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
				long entries = 0;
				for (int b = 0; b < 4; b++) {
					entries += connection.sync().zcard(keys.readyKey(b, "t"));
				}
				assertThat(entries).as("entries left in the ready sets").isZero();
			}
			Map<String, Integer> runs = new ConcurrentHashMap<>();
			redeq.subscribe("t", String.class, (payload, delivery) -> runs.merge(delivery.id(), 1, Integer::sum));
			redeq.client().schedule(Job.builder("t").id("real").payload("x").build());
			await().atMost(Duration.ofSeconds(5)).until(() -> runs.containsKey("real"));
			assertThat(runs).containsOnlyKeys("real");
		}
	}

	/**
	 * A DEAD job does not block a new job with its id under KEEP or REJECT; the new one
	 * replaces it and runs.
	 */
	@Test
	void aDeadJobDoesNotBlockANewJobWithItsId() {
		try (Redeq redeq = Redeq.builder(this.lettuce).prefix("deadid").build()) {
			AtomicInteger failing = new AtomicInteger(1);
			Map<String, Integer> ok = new ConcurrentHashMap<>();
			redeq.subscribe("t", String.class, (payload, delivery) -> {
				if (payload.equals("bad")) {
					failing.incrementAndGet();
					throw new IllegalStateException("bad payload");
				}
				ok.merge(delivery.id() + ":" + payload, 1, Integer::sum);
			}, SubscriptionOptions.builder().maxAttempts(1).build());
			redeq.client().schedule(Job.builder("t").id("a").payload("bad").build());
			redeq.client().schedule(Job.builder("t").id("b").payload("bad").build());
			await().atMost(Duration.ofSeconds(10)).until(() -> redeq.admin().stats("t").dead() == 2);
			redeq.client().schedule(Job.builder("t").id("a").payload("good").onDuplicate(Duplicate.KEEP).build());
			redeq.client().schedule(Job.builder("t").id("b").payload("good").onDuplicate(Duplicate.REJECT).build());
			await().atMost(Duration.ofSeconds(10)).until(() -> ok.size() == 2);
			assertThat(ok).containsOnly(Map.entry("a:good", 1), Map.entry("b:good", 1));
			// A completion may wait for the migrator's next call in its bucket to ride
			// on it (Acknowledgements.RIDE_WAIT): the jobs leave IN_FLIGHT after that.
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(redeq.admin().stats("t")).isEqualTo(new TopicStats("t", 0, 0, 0, 0)));
		}
	}

	/**
	 * Ids that differ only in unpaired surrogates would be the same key in Redis (UTF-8
	 * writes both as '?'); they are refused.
	 */
	@Test
	void idsWithUnpairedSurrogatesAreRefused() {
		try (Redeq redeq = Redeq.builder(this.lettuce).prefix("surrogate").migratorEnabled(false).build()) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> redeq.client().schedule(Job.builder("t").id("a\uD800").payload("x").build()))
				.withMessageContaining("unpaired UTF-16 surrogate at index 1");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> redeq.client().schedule(Job.builder("t").id("\uDC00b").payload("x").build()))
				.withMessageContaining("unpaired UTF-16 surrogate at index 0");
			redeq.client().schedule(Job.builder("t").id("ok-\uD83D\uDE00").payload("x").build());
			assertThat(redeq.client().find("t", "ok-\uD83D\uDE00")).isPresent();
		}
	}

	/**
	 * A claim that ran in Redis but whose reply the engine waited for in vain (held past
	 * the command timeout) leaves its job IN_FLIGHT under a token nobody holds. The
	 * fetcher hands it back, with its attempt, before its next claim: the job runs once,
	 * as attempt 1, and does not go DEAD although it had a single attempt.
	 */
	@Test
	void aJobWhoseClaimReplyTimedOutRunsOnceAsItsFirstAttempt() throws Exception {
		Map<String, List<Integer>> attempts = lostClaim("heldclaim",
				(proxy, claimSha) -> proxy.holdReplyTo(Duration.ofMillis(1500), claimSha, "lost.claim"), 1);
		assertThat(attempts).containsOnly(Map.entry("j1", List.of(1)));
	}

	/**
	 * The other way a claim's reply is lost: the connection drops after the claim ran,
	 * and Lettuce sends the same claim again once it has reconnected. The second run must
	 * deliver the jobs the first one took, and take none besides: each job runs once, as
	 * attempt 1, and never more at once than the concurrency.
	 */
	@Test
	void aClaimLettuceSendsAgainAfterItsReplyWasLostDeliversItsJobsOnce() throws Exception {
		Map<String, List<Integer>> attempts = lostClaim("replayedclaim",
				(proxy, claimSha) -> proxy.loseReplyTo(claimSha, "lost.claim"), 2);
		assertThat(attempts).containsOnly(Map.entry("j1", List.of(1)), Map.entry("j2", List.of(1)));
	}

	/**
	 * Runs {@code jobs} jobs of a topic with one attempt each through an engine behind a
	 * proxy that loses the reply of the first claim; returns the attempts each job ran.
	 */
	private Map<String, List<Integer>> lostClaim(String prefix, BiFunction<FaultProxy, String, FaultProxy.Fault> fault,
			int jobs) throws Exception {
		try (FaultProxy proxy = FaultProxy.to(this.server)) {
			RedisClient proxied = RedisClient.create(proxy.uri());
			Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();
			AtomicInteger running = new AtomicInteger();
			List<Integer> concurrent = new CopyOnWriteArrayList<>();
			try (Redeq redeq = Redeq.builder(proxied)
				.prefix(prefix)
				.buckets(1)
				.commandTimeout(Duration.ofSeconds(1))
				.build()) {
				for (int i = 1; i <= jobs; i++) {
					redeq.client().schedule(Job.builder("lost.claim").id("j" + i).payload(i).build());
				}
				await().atMost(Duration.ofSeconds(10)).until(() -> redeq.admin().stats("lost.claim").ready() == jobs);
				FaultProxy.Fault lost = fault.apply(proxy, ScriptDigests.load(this.lettuce, "claim"));
				// A lease far longer than the recovery: a job left to its lease would
				// go DEAD (one attempt) about 10 s after the claim.
				redeq.subscribe("lost.claim", Integer.class, (n, delivery) -> {
					concurrent.add(running.incrementAndGet());
					attempts.computeIfAbsent(delivery.id(), (id) -> new CopyOnWriteArrayList<>())
						.add(delivery.attempt());
					running.decrementAndGet();
				}, SubscriptionOptions.builder().maxAttempts(1).concurrency(1).lease(Duration.ofSeconds(10)).build());
				// The engine's calls, these included, time out while the proxy
				// holds a reply.
				await().atMost(Duration.ofSeconds(30)).ignoreException(RedeqUnavailableException.class).until(() -> {
					TopicStats stats = redeq.admin().stats("lost.claim");
					return stats.dead() > 0 || (attempts.size() == jobs && stats.pending() == 0);
				});
				assertThat(lost.happened()).as("the first claim ran and its reply was lost").isTrue();
				assertThat(redeq.admin().stats("lost.claim")).isEqualTo(new TopicStats("lost.claim", 0, 0, 0, 0));
				assertThat(concurrent).as("handlers running at once").allMatch((n) -> n == 1);
				return attempts;
			}
			finally {
				proxied.shutdown();
			}
		}
	}

	/**
	 * A cancel whose reply was lost and which Lettuce sent again after reconnecting: the
	 * first run deleted the job, the second finds nothing, yet the caller's cancel did
	 * cancel it and is told so.
	 */
	@Test
	void aCancelLettuceSendsAgainAfterItsReplyWasLostAnswersTrue() throws Exception {
		try (FaultProxy proxy = FaultProxy.to(this.server)) {
			RedisClient proxied = RedisClient.create(proxy.uri());
			try (Redeq redeq = Redeq.builder(proxied).prefix("replayedcancel").migratorEnabled(false).build()) {
				redeq.client().schedule(Job.builder("t").id("c").payload("x").delay(Duration.ofHours(1)).build());
				FaultProxy.Fault lost = proxy.loseReplyTo(ScriptDigests.load(this.lettuce, "cancel"), "t:c");
				boolean cancelled = redeq.client().cancel("t", "c");
				assertThat(lost.happened()).as("the cancel ran and its reply was lost").isTrue();
				assertThat(proxy.connectionsAccepted()).as("connections, the one cut included").isGreaterThan(1);
				assertThat(cancelled).as("answer of the cancel").isTrue();
				assertThat(redeq.client().find("t", "c")).isEmpty();
				assertThat(redeq.admin().stats("t")).isEqualTo(new TopicStats("t", 0, 0, 0, 0));
				assertThat(redeq.client().cancel("t", "c")).as("a second cancel of the same job").isFalse();
			}
			finally {
				proxied.shutdown();
			}
		}
	}

	/**
	 * A reshard runs beside an instance of the prefix that runs its migrator, and that
	 * instance follows the new layout: a job it schedules afterwards lands where the new
	 * layout looks, and no job is lost.
	 */
	@Test
	void aReshardRunsBesideARunningInstanceWhichFollowsItAndStrandsNoJob() {
		try (Redeq running = Redeq.builder(this.lettuce).prefix("layout").buckets(4).instanceId("worker-1").build()) {
			running.client().schedule(Job.builder("t").id("before").payload("x").delay(Duration.ofHours(1)).build());
			await().atMost(Duration.ofSeconds(10)).until(() -> running.ownedBuckets().length == 4);
			Redeq.builder(this.lettuce).prefix("layout").buckets(8).reshard();
			running.client().schedule(Job.builder("t").id("after").payload("x").delay(Duration.ofHours(1)).build());
			assertThat(running.options().buckets()).as("followed, at the latest when its schedule was refused")
				.isEqualTo(8);
			try (Redeq resharded = Redeq.builder(this.lettuce).prefix("layout").buckets(8).build()) {
				assertThat(resharded.client().find("t", "before")).isPresent();
				assertThat(resharded.client().find("t", "after")).isPresent();
				assertThat(resharded.admin().stats("t").pending()).isEqualTo(2);
			}
		}
	}

}
