package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.internal.redis.KeySpace;
import io.redeq.test.CommandStats;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Group commit of single {@code schedule} calls on a real redis-server: while two calls
 * for a bucket are in flight, later calls for that bucket go together in its next script
 * call, and each caller still gets its own result or exception. One bucket, so every job
 * shares it; {@code CLIENT PAUSE WRITE} holds the calls in flight for as long as a test
 * needs, so the calls made meanwhile are known to wait for the next one.
 */
@RedisTest
class GroupCommitIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final String PREFIX = "gc";

	private final RedisClient lettuce;

	private StatefulRedisConnection<String, String> probe;

	private Redeq redeq;

	GroupCommitIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		this.probe = this.lettuce.connect();
		this.redeq = Redeq.builder(this.lettuce)
			.prefix(PREFIX)
			.buckets(1)
			.migratorEnabled(false)
			.commandTimeout(Duration.ofSeconds(10))
			.build();
		// Loads the scripts, so the calls below are the schedules only.
		this.redeq.client().schedule(job("warm", "w-0"));
	}

	@AfterEach
	void stop() {
		unpauseWrites();
		this.redeq.close();
		this.probe.close();
	}

	@Test
	void concurrentCallersEachGetTheirOwnIdInFewerScriptCallsThanJobs() throws Exception {
		int threads = 16;
		int perThread = 100;
		long callsBefore = CommandStats.scriptCalls(this.lettuce);
		Map<String, String> returned = new ConcurrentHashMap<>();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		CountDownLatch go = new CountDownLatch(1);
		List<Thread> started = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int thread = t;
			Thread producer = new Thread(() -> {
				try {
					go.await();
					for (int i = 0; i < perThread; i++) {
						String id = "t" + thread + "-" + i;
						returned.put(id, this.redeq.client().schedule(job("many", id)));
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			});
			started.add(producer);
			producer.start();
		}
		go.countDown();
		for (Thread producer : started) {
			producer.join(WAIT.toMillis());
		}

		assertThat(failure.get()).isNull();
		assertThat(returned).hasSize(threads * perThread);
		returned.forEach((asked, answered) -> assertThat(answered).isEqualTo(asked));
		assertThat(this.redeq.admin().stats("many").delayed()).isEqualTo(threads * perThread);
		assertThat(CommandStats.scriptCalls(this.lettuce) - callsBefore).isLessThan(threads * perThread);
	}

	@Test
	void callsMadeWhileOneIsInFlightGoTogetherInTheNextCallInTheirOrder() {
		AsyncRedeqClient async = this.redeq.client().async();
		pauseWrites();
		CompletableFuture<String> first = async.schedule(job("order", "first"));
		CompletableFuture<String> second = async.schedule(job("order", "second"));
		List<CompletableFuture<String>> waiting = new ArrayList<>();
		Instant base = Instant.now().plus(Duration.ofHours(1));
		for (int i = 0; i < 50; i++) {
			waiting
				.add(async.schedule(Job.builder("order").id("o-" + i).payload(i).dueAt(base.plusSeconds(i)).build()));
		}
		long callsBefore = CommandStats.scriptCalls(this.lettuce);
		unpauseWrites();

		assertThat(first.join()).isEqualTo("first");
		assertThat(second.join()).isEqualTo("second");
		for (int i = 0; i < waiting.size(); i++) {
			assertThat(waiting.get(i).join()).isEqualTo("o-" + i);
		}
		// The two paused calls and one call for the fifty that waited behind them.
		assertThat(CommandStats.scriptCalls(this.lettuce) - callsBefore).isEqualTo(3);
		for (int i = 0; i < waiting.size(); i++) {
			JobInfo info = this.redeq.client().find("order", "o-" + i).orElseThrow();
			assertThat(info.dueAt()).isEqualTo(base.plusSeconds(i).truncatedTo(ChronoUnit.MILLIS));
		}
	}

	@Test
	void aRejectedDuplicateFailsOnlyItsOwnCallerInASharedCall() {
		this.redeq.client().schedule(job("dup", "taken"));
		AsyncRedeqClient async = this.redeq.client().async();
		pauseWrites();
		CompletableFuture<String> inFlight = async.schedule(job("dup", "in-flight"));
		CompletableFuture<String> alsoInFlight = async.schedule(job("dup", "also-in-flight"));
		CompletableFuture<String> before = async.schedule(job("dup", "before"));
		CompletableFuture<String> taken = async.schedule(reject("dup", "taken"));
		CompletableFuture<String> twiceFirst = async.schedule(reject("dup", "twice"));
		CompletableFuture<String> twiceSecond = async.schedule(reject("dup", "twice"));
		CompletableFuture<String> after = async.schedule(job("dup", "after"));
		unpauseWrites();

		assertThat(inFlight.join()).isEqualTo("in-flight");
		assertThat(alsoInFlight.join()).isEqualTo("also-in-flight");
		assertThat(before.join()).isEqualTo("before");
		assertThat(twiceFirst.join()).isEqualTo("twice");
		assertThat(after.join()).isEqualTo("after");
		assertThat(failureOf(taken)).isInstanceOf(DuplicateJobException.class).hasMessageContaining("'taken'");
		assertThat(failureOf(twiceSecond)).isInstanceOf(DuplicateJobException.class).hasMessageContaining("'twice'");
		assertThat(this.redeq.admin().stats("dup").delayed()).isEqualTo(6);
	}

	@Test
	void aRedisErrorFailsTheCallersOfThatCallOnlyAndLaterCallsWork() {
		// A job already stored is looked up in its topic's ready set when a call of 8 or
		// more jobs schedules it again; that set made a string, Redis fails the call.
		this.redeq.client().schedule(job("broken", "old"));
		this.probe.sync().set(new KeySpace(PREFIX, 1).readyKey(0, "broken"), "not a sorted set");
		AsyncRedeqClient async = this.redeq.client().async();
		pauseWrites();
		CompletableFuture<String> inFlight = async.schedule(job("fine", "in-flight"));
		CompletableFuture<String> alsoInFlight = async.schedule(job("fine", "also-in-flight"));
		List<CompletableFuture<String>> sharing = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			sharing.add(async.schedule(job("fine", "sharing-" + i)));
		}
		CompletableFuture<String> breaking = async.schedule(
				Job.builder("broken").id("old").delay(Duration.ofHours(1)).onDuplicate(Duplicate.REPLACE).build());
		unpauseWrites();

		assertThat(inFlight.join()).isEqualTo("in-flight");
		assertThat(alsoInFlight.join()).isEqualTo("also-in-flight");
		for (CompletableFuture<String> call : sharing) {
			assertThat(failureOf(call)).isInstanceOf(RedeqException.class).hasMessageContaining("WRONGTYPE");
		}
		assertThat(failureOf(breaking)).isInstanceOf(RedeqException.class)
			.hasMessageContaining("WRONGTYPE")
			.hasMessageContaining("'old'");
		assertThat(this.redeq.client().find("fine", "sharing-0")).isEmpty();
		assertThat(async.schedule(job("fine", "later")).join()).isEqualTo("later");
		assertThat(this.redeq.client().schedule(job("fine", "later-blocking"))).isEqualTo("later-blocking");
	}

	@Test
	void closingWhileCallsWaitEndsEveryCallAndNothingHangs() {
		AsyncRedeqClient async = this.redeq.client().async();
		pauseWrites();
		List<CompletableFuture<String>> calls = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			calls.add(async.schedule(job("closing", "c-" + i)));
		}
		this.redeq.close();
		unpauseWrites();

		CompletableFuture<Void> all = CompletableFuture
			.allOf(calls.stream().map((call) -> call.exceptionally((ex) -> null)).toArray(CompletableFuture[]::new));
		await().atMost(WAIT).until(all::isDone);
		for (CompletableFuture<String> call : calls) {
			if (call.isCompletedExceptionally()) {
				assertThat(failureOf(call)).isInstanceOfAny(RedeqUnavailableException.class,
						IllegalStateException.class);
			}
		}
		assertThat(failureOf(async.schedule(job("closing", "after-close")))).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("closed");
	}

	/** Holds every write (a schedule's script among them) until unpaused. */
	private void pauseWrites() {
		client("PAUSE", Long.toString(WAIT.toMillis()), "WRITE");
	}

	private void unpauseWrites() {
		client("UNPAUSE");
	}

	private void client(String... args) {
		CommandArgs<String, String> command = new CommandArgs<>(StringCodec.UTF8);
		for (String arg : args) {
			command.add(arg);
		}
		this.probe.sync().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8), command);
	}

	private static Job job(String topic, String id) {
		return Job.builder(topic).id(id).payload("p").delay(Duration.ofHours(1)).build();
	}

	private static Job reject(String topic, String id) {
		return Job.builder(topic).id(id).payload("p").delay(Duration.ofHours(1)).onDuplicate(Duplicate.REJECT).build();
	}

	private static Throwable failureOf(CompletableFuture<?> call) {
		try {
			call.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
		catch (Exception ex) {
			throw new AssertionError("No failure from " + call, ex);
		}
		throw new AssertionError("Succeeded: " + call.join());
	}

}
