package io.redeq.internal.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.Redeq;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * release-claim.lua on a real redis-server: it hands back what a lost claim holds, with
 * the attempt given back, and burns the token, so a claim or a migrate's hand-off under
 * it that reaches Redis afterwards (Lettuce sending it again, a failover routing it to
 * the new master late) takes nothing and leaves the jobs READY for everyone.
 */
@RedisTest
class ReleaseClaimIntegrationTests {

	private static final String TOPIC = "lost";

	private final RedisClient lettuce;

	private Redeq redeq;

	private RedisConnections connections;

	private RedisJobStore store;

	ReleaseClaimIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void open() {
		this.redeq = Redeq.builder(this.lettuce).prefix("release").buckets(1).migratorEnabled(false).build();
		this.connections = new RedisConnections(this.lettuce);
		this.store = new RedisJobStore(new KeySpace("release", 1),
				new ScriptRunner(this.connections, Duration.ofSeconds(10)));
	}

	@AfterEach
	void close() {
		this.connections.close();
		this.redeq.close();
	}

	@Test
	void handsBackWhatALostClaimHoldsWithItsAttemptGivenBack() {
		scheduleReady("a", "b");
		ClaimResult claimed = await(this.store.claim(0, TOPIC, 2, 30_000, "inst:lost:1", 3));
		assertThat(claimed.jobs()).hasSize(2);

		assertThat(this.store.releaseClaim(0, TOPIC, "inst:lost:1")).isEqualTo(2);

		assertThat(List.of(find("a"), find("b"))).allSatisfy((job) -> {
			assertThat(job.state()).isEqualTo(JobState.READY);
			assertThat(job.attempts()).isZero();
		});
		assertThat(this.redeq.admin().stats(TOPIC).inFlight()).isZero();
	}

	@Test
	void aClaimThatReachesRedisAfterItsHandBackTakesNothing() {
		scheduleReady("a", "b");

		assertThat(this.store.releaseClaim(0, TOPIC, "inst:lost:2")).isZero();
		ClaimResult late = await(this.store.claim(0, TOPIC, 2, 30_000, "inst:lost:2", 3));

		assertThat(late.jobs()).isEmpty();
		assertThat(List.of(find("a"), find("b"))).extracting(JobInfo::state).containsOnly(JobState.READY);
		assertThat(await(this.store.claim(0, TOPIC, 2, 30_000, "inst:lost:3", 3)).jobs())
			.as("a claim under a new token takes them")
			.hasSize(2);
	}

	@Test
	void aHandOffThatReachesRedisAfterItsHandBackTakesNothing() {
		this.redeq.client().schedule(Job.builder(TOPIC).id("due").payload("due").build());

		assertThat(this.store.releaseClaim(0, TOPIC, "inst:lost:4")).isZero();
		List<MigrateResult> results = new ArrayList<>();
		this.store.migrateDue(new int[] { 0 }, 100, List.of(List.of(new SlotOffer(TOPIC, 4, 30_000, "inst:lost:4", 3))),
				(bucket, result) -> results.add(result));

		assertThat(results).singleElement().satisfies((result) -> {
			assertThat(result.migrated()).isEqualTo(1);
			assertThat(result.handedOver()).singleElement().satisfies((jobs) -> assertThat(jobs).isEmpty());
		});
		assertThat(find("due").state()).isEqualTo(JobState.READY);
	}

	private void scheduleReady(String... ids) {
		for (String id : ids) {
			this.redeq.client().schedule(Job.builder(TOPIC).id(id).payload(id).build());
		}
		assertThat(this.store.migrate(0, 100, false, "", 10_000, 0).migrated()).isEqualTo(ids.length);
	}

	private JobInfo find(String id) {
		return this.redeq.client().find(TOPIC, id).orElseThrow();
	}

	private <T> T await(CompletionStage<T> stage) {
		return this.store.scripts().await(stage, "test");
	}

}
