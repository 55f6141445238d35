package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import org.assertj.core.api.Assertions;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.internal.consumer.VersionedLifecycleListener;
import io.redeq.internal.schedule.AcceptedJob;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The version the starter's journal gives each job it sends (see
 * {@link io.redeq.internal.schedule.JournalHooks#versions}) is stored with the job and
 * told with every step of its deliveries, through retries, beside its own settings; a job
 * replaced under its id is delivered as the new version.
 */
@RedisTest
class JobVersionIntegrationTests {

	private final RedisClient lettuce;

	private final Steps steps = new Steps();

	private @Nullable Redeq redeq;

	JobVersionIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@AfterEach
	void stop() {
		if (this.redeq != null) {
			this.redeq.close();
		}
	}

	private Redeq start() {
		Redeq redeq = Redeq.builder(this.lettuce)
			.backoff(new Backoff(Duration.ofMillis(20), 1.0, Duration.ofMillis(20), 0.0))
			.lifecycleListener(this.steps)
			.build();
		this.redeq = redeq;
		return redeq;
	}

	@Test
	void everyStepOfADeliveryNamesTheVersionTheJobWasSentAs() {
		Redeq redeq = start();
		AtomicInteger sent = new AtomicInteger();
		List<AcceptedJob> accepted = new CopyOnWriteArrayList<>();
		redeq.journalHooks().versions((job) -> job.id() + "-v" + sent.incrementAndGet());
		redeq.journalHooks().onAccepted(accepted::add);
		AtomicInteger calls = new AtomicInteger();
		redeq.subscribe("versioned", String.class, (text, delivery) -> {
			if (delivery.id().equals("flaky") && calls.incrementAndGet() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
		}, SubscriptionOptions.builder().maxAttempts(3).build());

		redeq.client().schedule(Job.builder("versioned").id("flaky").payload("x").priority(7).maxAttempts(2).build());
		redeq.client().schedule(Job.builder("versioned").id("plain").payload("y").build());

		await().atMost(Duration.ofSeconds(20))
			.until(() -> this.steps.of("flaky").size() == 4 && this.steps.of("plain").size() == 2);
		assertThat(accepted).extracting(AcceptedJob::id, AcceptedJob::version)
			.containsExactlyInAnyOrder(Assertions.tuple("flaky", "flaky-v1"), Assertions.tuple("plain", "plain-v2"));
		assertThat(this.steps.of("flaky")).containsExactly("start#1 flaky-v1", "retry#1 flaky-v1", "start#2 flaky-v1",
				"success#2 flaky-v1");
		assertThat(this.steps.of("plain")).containsExactly("start#1 plain-v2", "success#1 plain-v2");
	}

	@Test
	void aJobReplacedUnderItsIdIsDeliveredAsTheNewVersion() {
		Redeq redeq = start();
		AtomicInteger sent = new AtomicInteger();
		redeq.journalHooks().versions((job) -> "v" + sent.incrementAndGet());
		redeq.client().schedule(Job.builder("replaced").id("r").payload("old").delay(Duration.ofMinutes(5)).build());
		redeq.client().schedule(Job.builder("replaced").id("r").payload("new").build());
		List<String> payloads = new CopyOnWriteArrayList<>();
		redeq.subscribe("replaced", String.class, (text, delivery) -> payloads.add(text));

		await().atMost(Duration.ofSeconds(20)).until(() -> this.steps.of("r").size() == 2);
		assertThat(payloads).containsExactly("new");
		assertThat(this.steps.of("r")).containsExactly("start#1 v2", "success#1 v2");
	}

	@Test
	void aJobSentWithoutVersionsIsDeliveredWithoutOne() {
		Redeq redeq = start();
		redeq.subscribe("plain", String.class, (text, delivery) -> {
		});
		redeq.client().schedule(Job.builder("plain").id("p").payload("x").priority(3).build());

		await().atMost(Duration.ofSeconds(20)).until(() -> this.steps.of("p").size() == 2);
		assertThat(this.steps.of("p")).containsExactly("start#1 null", "success#1 null");
	}

	/** Records each step of each job with the version it was told. */
	static final class Steps implements VersionedLifecycleListener {

		private final Map<String, List<String>> byId = new ConcurrentHashMap<>();

		List<String> of(String id) {
			return this.byId.getOrDefault(id, List.of());
		}

		private void add(Delivery delivery, String step, @Nullable String version) {
			this.byId.computeIfAbsent(delivery.id(), (id) -> new CopyOnWriteArrayList<>())
				.add(step + "#" + delivery.attempt() + " " + version);
		}

		@Override
		public void onStart(Delivery delivery, @Nullable String version) {
			add(delivery, "start", version);
		}

		@Override
		public void onSuccess(Delivery delivery, Duration handlerDuration, @Nullable String version) {
			add(delivery, "success", version);
		}

		@Override
		public void onRetry(Delivery delivery, Throwable error, Instant nextAttemptAt, @Nullable String version) {
			add(delivery, "retry", version);
		}

		@Override
		public void onDead(Delivery delivery, String reason, @Nullable String version) {
			add(delivery, "dead", version);
		}

	}

}
