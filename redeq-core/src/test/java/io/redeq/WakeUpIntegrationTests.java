package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Wake-ups between instances on a real redis-server: a job that one instance schedules
 * into a bucket another instance migrates runs on time, though the owner's safety sweep
 * comes only every minute. The owner hears of the earlier job on the wake-up channel
 * (pub/sub); the sweep would find it anyway, a minute late, so a lateness well below the
 * sweep interval shows the wake-up travelled.
 */
@RedisTest
class WakeUpIntegrationTests {

	/**
	 * Long enough that a job the sweep found would be far later than {@link #ON_TIME}.
	 */
	private static final Duration SWEEP = Duration.ofSeconds(60);

	/** The sweep is at most a third of the lock ttl (the sweep renews the locks). */
	private static final Duration LOCK_TTL = SWEEP.multipliedBy(3);

	/** Lateness accepted: milliseconds normally, generous for a loaded machine. */
	private static final Duration ON_TIME = Duration.ofSeconds(2);

	private static final int BUCKETS = 16;

	private final RedisClient lettuce;

	WakeUpIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@Test
	void aJobAProducerSchedulesIntoAnotherInstancesBucketRunsOnTime() {
		try (Redeq owner = engine("owner", true); Redeq producer = engine("producer", false)) {
			awaitsAllBuckets(owner);
			String later = idInBucket("wake", "later-", 3);
			String sooner = idInBucket("wake", "sooner-", 3);
			// The bucket is not empty: the owner plans its next call at this job's due
			// time, and only a wake-up or the sweep brings the sooner job forward.
			producer.client()
				.schedule(Job.builder("wake").id(later).payload("x").delay(Duration.ofMinutes(10)).build());
			Map<String, Duration> lateness = new ConcurrentHashMap<>();
			producer.subscribe("wake", String.class, (payload, delivery) -> lateness.put(delivery.id(),
					Duration.between(delivery.dueAt(), Instant.now())));

			producer.client()
				.schedule(Job.builder("wake").id(sooner).payload("x").delay(Duration.ofMillis(500)).build());

			await().atMost(ON_TIME.plusSeconds(5)).until(() -> lateness.containsKey(sooner));
			assertThat(lateness.get(sooner)).as("lateness with a sweep every %s", SWEEP).isLessThan(ON_TIME);
			assertThat(producer.client().find("wake", later))
				.hasValueSatisfying((info) -> assertThat(info.state()).isEqualTo(JobState.DELAYED));
		}
	}

	@Test
	void aJobAnInstanceWithItsOwnMigratorSchedulesIntoABucketItDoesNotOwnRunsOnTime() {
		try (Redeq owner = engine("owner", true)) {
			awaitsAllBuckets(owner);
			try (Redeq other = engine("other", true)) {
				// The owner holds every lock for the lock ttl: once the other instance
				// has announced itself, it has tried them all and owns none.
				await().atMost(Duration.ofSeconds(10)).until(() -> other.admin().instances().size() == 2);
				assertThat(other.ownedBuckets()).isEmpty();
				Map<String, Duration> lateness = new ConcurrentHashMap<>();
				other.subscribe("wake", String.class, (payload, delivery) -> lateness.put(delivery.id(),
						Duration.between(delivery.dueAt(), Instant.now())));
				String id = idInBucket("wake", "job-", 5);

				other.client().schedule(Job.builder("wake").id(id).payload("x").delay(Duration.ofMillis(500)).build());

				await().atMost(ON_TIME.plusSeconds(5)).until(() -> lateness.containsKey(id));
				assertThat(lateness.get(id)).as("lateness with a sweep every %s", SWEEP).isLessThan(ON_TIME);
				assertThat(other.ownedBuckets()).as("the scheduling instance's buckets").isEmpty();
			}
		}
	}

	@Test
	void aRetryOfAJobInAnotherInstancesBucketRunsOnTime() {
		try (Redeq owner = engine("owner", true); Redeq consumer = engine("consumer", false)) {
			awaitsAllBuckets(owner);
			Map<Integer, Duration> lateness = new ConcurrentHashMap<>();
			consumer.subscribe("wake", String.class, (payload, delivery) -> {
				lateness.put(delivery.attempt(), Duration.between(delivery.dueAt(), Instant.now()));
				if (delivery.attempt() == 1) {
					throw new RetryAfterException(Duration.ofMillis(500));
				}
			});

			consumer.client().schedule("wake", "x", Duration.ZERO);

			await().atMost(ON_TIME.plusSeconds(5)).until(() -> lateness.containsKey(2));
			assertThat(lateness.get(2)).as("lateness of the retry with a sweep every %s", SWEEP).isLessThan(ON_TIME);
		}
	}

	private Redeq engine(String instanceId, boolean migrating) {
		return Redeq.builder(this.lettuce)
			.instanceId(instanceId)
			.buckets(BUCKETS)
			.sweepInterval(SWEEP)
			.lockTtl(LOCK_TTL)
			.migratorEnabled(migrating)
			.build();
	}

	private static void awaitsAllBuckets(Redeq owner) {
		await().atMost(Duration.ofSeconds(10)).until(() -> owner.ownedBuckets().length == BUCKETS);
	}

	/** An id, {@code prefix} followed by a number, whose job lands in {@code bucket}. */
	private static String idInBucket(String topic, String prefix, int bucket) {
		KeySpace keys = new KeySpace("redeq", BUCKETS);
		for (int i = 0; i < 100_000; i++) {
			String id = prefix + i;
			if (keys.bucketOf(KeySpace.jobKey(topic, id)) == bucket) {
				return id;
			}
		}
		throw new IllegalStateException("No id of the form " + prefix + "<n> lands in bucket " + bucket);
	}

}
