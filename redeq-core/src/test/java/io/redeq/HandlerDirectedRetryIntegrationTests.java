package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A handler decides about its job's retry: {@link NotRetryableException} buries it at
 * once, {@link RetryAfterException} sets when the next attempt is due; both also when
 * they are the cause of the exception the handler threw.
 */
@RedisTest
class HandlerDirectedRetryIntegrationTests {

	/** A backoff far longer than the tests wait, so a retry after it would show. */
	private static final Duration LONG_BACKOFF = Duration.ofHours(1);

	private final RedisClient lettuce;

	private final List<String> events = new CopyOnWriteArrayList<>();

	private final Map<String, Instant> nextAttempts = new ConcurrentHashMap<>();

	private Redeq redeq;

	HandlerDirectedRetryIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		this.redeq = Redeq.builder(this.lettuce)
			.maxAttempts(5)
			.backoff(new Backoff(LONG_BACKOFF, 1.0, LONG_BACKOFF, 0.0))
			.lifecycleListener(new JobLifecycleListener() {

				@Override
				public void onRetry(Delivery delivery, Throwable error, Instant nextAttemptAt) {
					HandlerDirectedRetryIntegrationTests.this.nextAttempts.put(delivery.id(), nextAttemptAt);
					HandlerDirectedRetryIntegrationTests.this.events.add("retry " + delivery.id());
				}

				@Override
				public void onDead(Delivery delivery, String reason) {
					HandlerDirectedRetryIntegrationTests.this.events.add("dead " + delivery.id());
				}

			})
			.build();
	}

	@AfterEach
	void stop() {
		this.redeq.close();
	}

	@Test
	void aNotRetryableFailureIsDeadAtOnceWhateverAttemptsAreLeft() {
		AtomicInteger runs = new AtomicInteger();
		this.redeq.subscribe("card.charge", String.class, (payload, delivery) -> {
			runs.incrementAndGet();
			if (delivery.id().equals("declined")) {
				throw new NotRetryableException("card declined");
			}
			// A framework wrapped it: the cause still counts.
			throw new IllegalStateException("listener failed", new NotRetryableException("order gone"));
		});
		this.redeq.client().schedule(Job.builder("card.charge").id("declined").payload("x").build());
		this.redeq.client().schedule(Job.builder("card.charge").id("wrapped").payload("x").build());

		await().atMost(Duration.ofSeconds(10)).until(() -> this.redeq.admin().stats("card.charge").dead() == 2);
		assertThat(runs.get()).isEqualTo(2);
		assertThat(this.events).containsExactlyInAnyOrder("dead declined", "dead wrapped");
		List<DeadJob> dead = this.redeq.admin().deadJobs("card.charge", 0, 10);
		assertThat(dead).extracting(DeadJob::attempts).containsOnly(1);
		assertThat(dead).extracting(DeadJob::lastError)
			.anySatisfy((error) -> assertThat(error).contains("not retryable").contains("card declined"));
	}

	@Test
	void aRetryAfterFailureIsDueAfterItsDelayInsteadOfTheBackoff() {
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		this.redeq.subscribe("api.call", String.class, (payload, delivery) -> {
			attempts.add(delivery.attempt());
			if (delivery.attempt() == 1) {
				throw new RetryAfterException(Duration.ofMillis(300), "rate limited", null);
			}
		});
		Instant before = Instant.now();
		this.redeq.client().schedule(Job.builder("api.call").id("limited").payload("x").build());

		await().atMost(Duration.ofSeconds(10)).until(() -> attempts.size() == 2);
		Instant next = this.nextAttempts.get("limited");
		assertThat(next).isAfter(before.plusMillis(300)).isBefore(Instant.now().plusMillis(1));
		assertThat(attempts).containsExactly(1, 2);
	}

	@Test
	void aRetryAfterOnTheLastAttemptIsDead() {
		this.redeq.subscribe("api.last", String.class, (payload, delivery) -> {
			throw new IllegalStateException(new RetryAfterException(Duration.ZERO));
		});
		this.redeq.client().schedule(Job.builder("api.last").id("last").payload("x").maxAttempts(2).build());

		await().atMost(Duration.ofSeconds(10)).until(() -> this.redeq.admin().stats("api.last").dead() == 1);
		assertThat(this.events).containsExactly("retry last", "dead last");
	}

	@Test
	void aRetryAfterDelayOutOfRangeIsRefusedNamingIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RetryAfterException(Duration.ofMillis(-1)))
			.withMessageContaining("PT-0.001S");
	}

}
