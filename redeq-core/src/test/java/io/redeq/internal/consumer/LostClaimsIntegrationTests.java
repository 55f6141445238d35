package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.Redeq;
import io.redeq.RedeqException;
import io.redeq.RedeqUnavailableException;
import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.test.FaultProxy;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A consumer's lost claims against a real Redis. During a failover the first hand-back of
 * a lost claim may be answered by a server that does not hold its jobs (a crashed master
 * restarted empty that still believes it serves the bucket, or a slot map not refreshed
 * yet), while the jobs sit IN_FLIGHT under the token on the new master. The test plays
 * that server by removing the token's memory after the first hand-back and claiming under
 * it, as the new master saw the claim: the next hand-back, a second later, must return
 * those jobs, and the token is forgotten once its lease has passed.
 */
@RedisTest
class LostClaimsIntegrationTests {

	private static final String TOPIC = "lost";

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final RedisClient lettuce;

	private final RedisServer server;

	private final AtomicLong clock = new AtomicLong(1_000_000_000L);

	private Redeq redeq;

	private RedisConnections connections;

	private RedisJobStore store;

	private final KeySpace keys = new KeySpace("lostclaims", 1);

	LostClaimsIntegrationTests(RedisClient lettuce, RedisServer server) {
		this.lettuce = lettuce;
		this.server = server;
	}

	@BeforeEach
	void open() {
		this.redeq = Redeq.builder(this.lettuce).prefix("lostclaims").buckets(1).migratorEnabled(false).build();
		this.connections = new RedisConnections(this.lettuce);
		this.store = new RedisJobStore(this.keys, new ScriptRunner(this.connections, Duration.ofSeconds(10)));
		for (String id : new String[] { "a", "b" }) {
			this.redeq.client().schedule(Job.builder(TOPIC).id(id).payload(id).build());
		}
		assertThat(this.store.migrate(0, 100, false, "", 10_000, 0).migrated()).isEqualTo(2);
	}

	@AfterEach
	void close() {
		this.connections.close();
		this.redeq.close();
	}

	@Test
	void aLostClaimIsHandedBackAgainUntilItsLeaseHasPassed() {
		LostClaims lost = new LostClaims(this.store, TOPIC, LEASE, this.clock::get);
		lost.failed(0, "inst:c:1", new RedeqUnavailableException("no reply", new RuntimeException()));
		assertThat(lost.anyNotHandedBack()).isTrue();

		assertThat(lost.handBack()).as("nothing held under the token yet").isEmpty();
		assertThat(lost.anyNotHandedBack()).isFalse();
		assertThat(lost.isEmpty()).as("kept for another hand-back").isFalse();
		claimUnderTheTokenAsTheServerThatHoldsTheJobsSawIt("inst:c:1");
		assertThat(lost.anyDue()).isFalse();
		assertThat(lost.handBack()).as("not before a second has passed").isEmpty();
		assertThat(states()).containsOnly(JobState.IN_FLIGHT);

		this.clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
		assertThat(lost.anyDue()).isTrue();
		assertThat(lost.handBack()).containsExactly(0);
		assertThat(states()).containsOnly(JobState.READY);
		assertThat(find("a").attempts()).as("the attempt given back").isZero();

		this.clock.addAndGet(LEASE.toNanos());
		assertThat(lost.handBack()).isEmpty();
		assertThat(lost.isEmpty()).as("forgotten once its lease has passed").isTrue();
	}

	@Test
	void underALeaseOfHoursAClaimIsHandedBackForFiveMinutesAtMost() {
		LostClaims lost = new LostClaims(this.store, TOPIC, Duration.ofHours(2), this.clock::get);
		lost.unanswered(0, "inst:c:4");
		assertThat(lost.handBack()).isEmpty();

		this.clock.addAndGet(Duration.ofMinutes(4).toNanos());
		assertThat(lost.handBack()).isEmpty();
		assertThat(lost.isEmpty()).isFalse();
		this.clock.addAndGet(Duration.ofMinutes(1).toNanos());
		assertThat(lost.handBack()).isEmpty();

		assertThat(lost.isEmpty()).isTrue();
	}

	@Test
	void aLaterHandBackRedisDoesNotAnswerIsPlannedAgainWithoutStoppingTheFetcher() {
		RedisClient viaProxy = null;
		try (FaultProxy proxy = FaultProxy.to(this.server)) {
			viaProxy = RedisClient.create(proxy.uri());
			try (RedisConnections slow = new RedisConnections(viaProxy)) {
				RedisJobStore store = new RedisJobStore(this.keys, new ScriptRunner(slow, Duration.ofMillis(500)));
				LostClaims lost = new LostClaims(store, TOPIC, LEASE, this.clock::get);
				lost.unanswered(0, "inst:c:5");
				assertThat(lost.handBack()).isEmpty();
				FaultProxy.Fault held = proxy.holdReplyTo(Duration.ofSeconds(2), "inst:c:5");
				this.clock.addAndGet(TimeUnit.SECONDS.toNanos(1));

				assertThat(lost.handBack()).as("no reply within the command timeout, and no exception").isEmpty();

				assertThat(held.matched()).as("the hand-back reached Redis").isTrue();
				assertThat(lost.isEmpty()).as("still remembered").isFalse();
				assertThat(lost.anyDue()).as("planned for later, not at once").isFalse();
			}
		}
		finally {
			if (viaProxy != null) {
				viaProxy.shutdown();
			}
		}
	}

	@Test
	void closingHandsBackEveryLostClaimAtOnceWhateverItsTurn() {
		LostClaims lost = new LostClaims(this.store, TOPIC, LEASE, this.clock::get);
		lost.unanswered(0, "inst:c:3");
		assertThat(lost.handBack()).isEmpty();
		claimUnderTheTokenAsTheServerThatHoldsTheJobsSawIt("inst:c:3");

		assertThat(lost.handBackAll()).isEqualTo(2);

		assertThat(states()).containsOnly(JobState.READY);
		assertThat(lost.isEmpty()).isTrue();
	}

	@Test
	void aRefusalRedisAnsweredIsNotRemembered() {
		LostClaims lost = new LostClaims(this.store, TOPIC, LEASE, this.clock::get);
		lost.failed(0, "inst:c:2", new RedeqException("ERR a script error"));

		assertThat(lost.isEmpty()).isTrue();
	}

	private void claimUnderTheTokenAsTheServerThatHoldsTheJobsSawIt(String token) {
		try (StatefulRedisConnection<String, String> admin = this.lettuce.connect()) {
			admin.sync().del(this.keys.requestsKey(0));
		}
		assertThat(await(this.store.claim(0, TOPIC, 2, LEASE.toMillis(), token, 3)).jobs()).hasSize(2);
	}

	private JobState[] states() {
		return new JobState[] { find("a").state(), find("b").state() };
	}

	private JobInfo find(String id) {
		return this.redeq.client().find(TOPIC, id).orElseThrow();
	}

	private <T> T await(CompletionStage<T> stage) {
		return this.store.scripts().await(stage, "test");
	}

}
