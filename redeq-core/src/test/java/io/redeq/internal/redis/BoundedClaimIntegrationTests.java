package io.redeq.internal.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.RedeqException;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.internal.redis.script.Scripts;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A claim with a score bound (claim.lua, and complete.lua's claim) on a real
 * redis-server: it takes only READY jobs scored at most the bound, lowest first, priority
 * fraction included, and a bound that is no number is refused before anything is written.
 */
@RedisTest
class BoundedClaimIntegrationTests {

	private static final String TOPIC = "bounded";

	private final RedisClient lettuce;

	private Redeq redeq;

	private RedisConnections connections;

	private RedisJobStore store;

	private final Instant base = Instant.now().minusSeconds(60);

	BoundedClaimIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void open() {
		this.redeq = Redeq.builder(this.lettuce).prefix("bounded").buckets(1).migratorEnabled(false).build();
		this.connections = new RedisConnections(this.lettuce);
		this.store = new RedisJobStore(new KeySpace("bounded", 1),
				new ScriptRunner(this.connections, Duration.ofSeconds(10)));
		schedule("a", 0, 0);
		schedule("b", 10, 0);
		schedule("c", 20, 0);
		schedule("urgent", 30, 9);
		assertThat(this.store.migrate(0, 100, false, "", 10_000, 0).migrated()).isEqualTo(4);
	}

	@AfterEach
	void close() {
		this.connections.close();
		this.redeq.close();
	}

	@Test
	void takesOnlyTheJobsScoredAtMostTheBound() {
		double bound = ClaimedJob.readyScore(this.base.toEpochMilli() + 10, 0);
		ClaimResult claimed = await(this.store.claim(0, TOPIC, 10, 30_000, "t:1", 3, bound));

		assertThat(claimed.jobs()).extracting(ClaimedJob::id).containsExactly("urgent", "a", "b");
		assertThat(claimed.remaining()).isEqualTo(1);
		assertThat(claimed.jobs().get(0).readyScore())
			.isEqualTo(ClaimedJob.readyScore(this.base.toEpochMilli() + 30, 9));
	}

	@Test
	void aBoundBelowThePriorityJobsExactScoreLeavesIt() {
		double urgent = ClaimedJob.readyScore(this.base.toEpochMilli() + 30, 9);
		ClaimResult claimed = await(this.store.claim(0, TOPIC, 10, 30_000, "t:2", 3, Math.nextDown(urgent)));

		assertThat(claimed.jobs()).isEmpty();
		assertThat(claimed.remaining()).isEqualTo(4);
	}

	@Test
	void aCompletionsClaimHonoursItsBound() {
		ClaimResult first = await(this.store.claim(0, TOPIC, 1, 30_000, "t:3", 3));
		assertThat(first.jobs()).extracting(ClaimedJob::id).containsExactly("urgent");
		double bound = ClaimedJob.readyScore(this.base.toEpochMilli(), 0);
		SlotOffer next = new SlotOffer(TOPIC, 5, 30_000, "t:4", 3, 0, bound);

		CompletionReply reply = await(this.store.completeAll(0, first.jobs(), next));

		assertThat(reply.completed()).containsExactly(true);
		assertThat(reply.claimed().jobs()).extracting(ClaimedJob::id).containsExactly("a");
		assertThat(reply.claimed().remaining()).isEqualTo(2);
	}

	@Test
	void aBoundThatIsNoNumberIsRefusedBeforeAnythingIsWritten() {
		String[] keys = new KeySpace("bounded", 1).jobScriptKeys(0, List.of(TOPIC));
		String[] withRequests = java.util.Arrays.copyOf(keys, keys.length + 1);
		withRequests[keys.length] = new KeySpace("bounded", 1).requestsKey(0);
		assertThatThrownBy(() -> await(this.store.scripts()
			.runAsync(Scripts.CLAIM, withRequests, TOPIC, "5", "30000", "t:5", "3", "60000", "soon")))
			.isInstanceOf(RedeqException.class)
			.hasMessageContaining("score bound must be a number")
			.hasMessageContaining("soon");
		assertThat(this.redeq.admin().stats(TOPIC).ready()).isEqualTo(4);
	}

	private void schedule(String id, long afterBase, int priority) {
		this.redeq.client()
			.schedule(Job.builder(TOPIC)
				.id(id)
				.payload(id)
				.dueAt(this.base.plusMillis(afterBase))
				.priority(priority)
				.build());
	}

	private <T> T await(CompletionStage<T> stage) {
		return this.store.scripts().await(stage, "test");
	}

}
