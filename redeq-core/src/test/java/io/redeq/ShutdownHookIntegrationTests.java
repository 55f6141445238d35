package io.redeq;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.test.JavaProcess;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Redeq.Builder#shutdownHook(boolean)} on a real redis-server: an instance without
 * Spring, in a JVM of its own, is stopped with SIGTERM while two handlers run, one that
 * finishes within the shutdown timeout and one that would never finish. With the hook,
 * the engine closes as {@link Redeq#close()} does: the first job completes, the second is
 * handed back to READY at once, though its lease (five minutes) is far from over. Without
 * the hook, both stay IN_FLIGHT until their leases expire.
 */
@RedisTest
class ShutdownHookIntegrationTests {

	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(2);

	private final RedisServer server;

	private final RedisClient lettuce;

	private final Redeq producer;

	private JavaProcess instance;

	ShutdownHookIntegrationTests(RedisServer server, RedisClient lettuce) {
		this.server = server;
		this.lettuce = lettuce;
		this.producer = Redeq.builder(lettuce).migratorEnabled(false).build();
	}

	@AfterEach
	void stop() {
		if (this.instance != null) {
			this.instance.close();
		}
		this.producer.close();
	}

	@Test
	void withTheHookASigtermLetsARunningHandlerFinishAndHandsBackOnePastTheTimeoutAtOnce() {
		Duration stopped = runUntilSigterm(true);

		assertThat(stopped).as("time the instance took to stop").isLessThan(SHUTDOWN_TIMEOUT.plusSeconds(5));
		assertThat(completed("done")).as("completions of the job that finished").isEqualTo("1");
		assertThat(this.producer.client().find("hooked", "done")).as("the completed job").isEmpty();
		assertThat(completed("stuck")).isNull();
		assertThat(this.producer.client().find("hooked", "stuck")).hasValueSatisfying((job) -> {
			assertThat(job.state()).as("state of the job past the timeout, its lease five minutes long")
				.isEqualTo(JobState.READY);
			assertThat(job.attempts()).isOne();
		});
	}

	@Test
	void withoutTheHookASigtermLeavesTheJobsInFlightUntilTheirLeasesExpire() {
		runUntilSigterm(false);

		assertThat(completed("done")).isNull();
		for (String id : List.of("done", "stuck")) {
			assertThat(this.producer.client().find("hooked", id)).as("job %s", id)
				.hasValueSatisfying((job) -> assertThat(job.state()).isEqualTo(JobState.IN_FLIGHT));
		}
	}

	@Test
	void closingTheEngineRemovesItsHookSoNothingKeepsItReachable() {
		Redeq redeq = Redeq.builder(this.lettuce).shutdownHook(true).build();
		Thread hook = redeq.registeredShutdownHook();
		assertThat(hook).isNotNull();

		redeq.close();

		assertThat(redeq.registeredShutdownHook()).isNull();
		assertThat(Runtime.getRuntime().removeShutdownHook(hook)).as("whether the hook was still registered").isFalse();
		assertThat(this.producer.registeredShutdownHook()).as("an engine built without the hook").isNull();
	}

	/**
	 * Starts the instance, has its handlers run jobs {@code done} and {@code stuck}, then
	 * stops it with SIGTERM and waits until it exited; returns how long that took.
	 */
	private Duration runUntilSigterm(boolean hook) {
		this.instance = JavaProcess.start(ShutdownHookInstance.class, this.server.uri().toString(),
				String.valueOf(hook), String.valueOf(SHUTDOWN_TIMEOUT.toMillis()));
		this.instance.awaitLine("READY"::equals, Duration.ofSeconds(60));
		this.producer.client()
			.scheduleAll(List.of(Job.builder("hooked").id("done").payload("finish").build(),
					Job.builder("hooked").id("stuck").payload("hang").build()));
		this.instance.awaitLine("RUNNING done"::equals, Duration.ofSeconds(10));
		this.instance.awaitLine("RUNNING stuck"::equals, Duration.ofSeconds(10));

		long stopping = System.nanoTime();
		this.instance.terminate(SHUTDOWN_TIMEOUT.plusSeconds(10));
		return Duration.ofNanos(System.nanoTime() - stopping);
	}

	private String completed(String id) {
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			return connection.sync().hget("test:completed", id);
		}
	}

}
