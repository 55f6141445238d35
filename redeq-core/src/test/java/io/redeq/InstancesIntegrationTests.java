package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.test.JavaProcess;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedeqAdmin#instances()}: every engine publishes who it is with its heartbeat;
 * any engine reads them all, with their buckets and listeners; an engine that closes is
 * gone at once, one killed with SIGKILL within its heartbeat's ttl.
 */
@RedisTest
class InstancesIntegrationTests {

	private static final Duration LOCK_TTL = Duration.ofSeconds(1);

	private final RedisServer server;

	private final RedisClient lettuce;

	private final StatefulRedisConnection<String, String> connection;

	private final List<Redeq> engines = new ArrayList<>();

	InstancesIntegrationTests(RedisServer server, RedisClient lettuce) {
		this.server = server;
		this.lettuce = lettuce;
		this.connection = lettuce.connect();
	}

	@AfterEach
	void stop() {
		this.engines.forEach(Redeq::close);
		this.connection.close();
	}

	@Test
	void twoEnginesAppearWithTheirBucketsAndListenersAndAClosedOneDisappears() {
		Instant before = Instant.now();
		Redeq first = engine("inst-a");
		Redeq second = engine("inst-b");
		first.subscribe("mail", String.class, (payload, delivery) -> {
		}, SubscriptionOptions.builder().concurrency(3).build());
		first.subscribe("sms", String.class, (payload, delivery) -> {
		}, SubscriptionOptions.builder().concurrency(1).build());
		second.subscribe("sms", String.class, (payload, delivery) -> {
		}, SubscriptionOptions.builder().concurrency(2).build());
		first.admin().pause("sms");

		// Every bucket has one owner once both engines took their share, and each lists
		// both subscriptions it had at a heartbeat after they were made.
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			List<InstanceInfo> instances = second.admin().instances();
			assertThat(instances).extracting(InstanceInfo::instanceId).containsExactly("inst-a", "inst-b");
			InstanceInfo a = instances.get(0);
			InstanceInfo b = instances.get(1);
			assertThat(a.listeners()).containsExactly(new InstanceInfo.Listener("mail", 3, false),
					new InstanceInfo.Listener("sms", 1, true));
			assertThat(b.listeners()).containsExactly(new InstanceInfo.Listener("sms", 2, true));
			// Both non-empty first: AssertJ refuses an empty iterable with an
			// IllegalArgumentException, which Awaitility would not retry.
			assertThat(a.ownedBuckets()).isNotEmpty();
			assertThat(b.ownedBuckets()).isNotEmpty();
			assertThat(a.ownedBuckets()).doesNotContainAnyElementsOf(b.ownedBuckets());
			TreeSet<Integer> all = new TreeSet<>(a.ownedBuckets());
			all.addAll(b.ownedBuckets());
			assertThat(all).hasSize(first.options().buckets());
		});
		InstanceInfo a = first.admin().instances().get(0);
		assertThat(a.hostName()).isNotBlank();
		assertThat(a.startedAt()).isBetween(before.minusMillis(1), Instant.now());
		assertThat(a.ownedBuckets()).isSorted();

		second.close();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(first.admin().instances()).extracting(InstanceInfo::instanceId)
				.containsExactly("inst-a"));
	}

	@Test
	void anInstanceKilledWithSigkillDisappearsWithinItsHeartbeatsTtl() {
		Redeq survivor = engine("survivor");
		try (JavaProcess doomed = JavaProcess.start(ChildInstance.class, this.server.uri().toString(), "doomed",
				"consume", "orders", "4", "false")) {
			await().atMost(Duration.ofSeconds(60))
				.until(() -> find(survivor, "doomed").filter((instance) -> !instance.listeners().isEmpty())
					.isPresent());
			assertThat(find(survivor, "doomed").orElseThrow().listeners())
				.containsExactly(new InstanceInfo.Listener("orders", 4, false));
			Long ttl = this.connection.sync().pttl("redeq:instance:doomed");
			assertThat(ttl).as("the description expires with the heartbeat").isBetween(1L, LOCK_TTL.toMillis());
			doomed.kill();
			// Its description lived at most LOCK_TTL past its last heartbeat.
			await().atMost(LOCK_TTL.plusSeconds(4)).until(() -> find(survivor, "doomed").isEmpty());
		}
		assertThat(survivor.admin().instances()).extracting(InstanceInfo::instanceId).containsExactly("survivor");
	}

	@Test
	void aDescriptionThatIsNotRedeqsIsLeftOut() {
		Redeq engine = engine("inst-a");
		await().atMost(Duration.ofSeconds(20)).until(() -> engine.admin().instances().size() == 1);
		this.connection.sync().zadd("redeq:instances", Double.MAX_VALUE, "stranger");
		this.connection.sync().set("redeq:instance:stranger", "not json {");
		assertThat(engine.admin().instances()).extracting(InstanceInfo::instanceId).containsExactly("inst-a");
	}

	private Redeq engine(String instanceId) {
		Redeq engine = Redeq.builder(this.lettuce).instanceId(instanceId).lockTtl(LOCK_TTL).build();
		this.engines.add(engine);
		return engine;
	}

	private static Optional<InstanceInfo> find(Redeq redeq, String instanceId) {
		return redeq.admin()
			.instances()
			.stream()
			.filter((instance) -> instance.instanceId().equals(instanceId))
			.findFirst();
	}

}
