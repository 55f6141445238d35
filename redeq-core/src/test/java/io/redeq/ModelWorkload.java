package io.redeq;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.AbstractRedisClient;

/**
 * The workload of {@link ModelIntegrationTests}, shared by the test JVM and the child
 * JVMs it starts ({@link ModelChild}): the engine settings, the two topics and the
 * handler, whose behaviour is written in each job's payload so that every engine runs a
 * job the same way.
 */
final class ModelWorkload {

	static final String PREFIX = "mdl";

	static final int BUCKETS = 8;

	/**
	 * Every explicit job id contains this character and nothing else redeq writes does
	 * (but the names of a bucket's own fields in its count hash, which the leak check
	 * knows), so a leftover reference to a job can be found in any Redis value.
	 */
	static final String ID_MARK = "~";

	/**
	 * How far past its timeout a rogue handler (one that ignores the interrupt) keeps
	 * running.
	 */
	static final Duration ROGUE_OVERRUN = Duration.ofMillis(800);

	/**
	 * How far past its timeout a hanging handler waits for the interrupt before it gives
	 * up.
	 */
	static final Duration HANG_LIMIT = Duration.ofSeconds(2);

	static final String OK = "ok";

	static final String THREW = "threw";

	static final String INTERRUPTED = "interrupted";

	static final String ROGUE = "rogue";

	static final String OUTLIVED = "outlived";

	/**
	 * Two topics with different settings; every engine subscribes to both with the same
	 * options (a topic's attempts and timeouts must not depend on which instance claims
	 * it). Shutdown waits less than any timeout, so closing an engine hands back jobs
	 * whose handlers still run.
	 */
	static final List<TopicSpec> TOPICS = List.of(
			new TopicSpec("alpha", 3, 3, Duration.ofMillis(900), Duration.ofMillis(450),
					new Backoff(Duration.ofMillis(60), 2.0, Duration.ofMillis(400), 0.5)),
			new TopicSpec("beta", 2, 2, Duration.ofMillis(700), Duration.ofMillis(700),
					new Backoff(Duration.ofMillis(100), 1.5, Duration.ofMillis(300), 0.3)));

	/**
	 * A gap this long in a thread that wakes every 20 ms means the JVM stalled (GC, CPU
	 * starvation); leases may expire in it as in a SIGSTOP.
	 */
	static final Duration STALL = Duration.ofMillis(250);

	private static final CountDownLatch NEVER = new CountDownLatch(1);

	private ModelWorkload() {
	}

	static TopicSpec topic(String name) {
		return TOPICS.stream()
			.filter((spec) -> spec.name().equals(name))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException(name));
	}

	/** The builder every engine of a model run starts from. */
	static Redeq.Builder engine(AbstractRedisClient client, String instanceId) {
		return Redeq.builder(client)
			.prefix(PREFIX)
			.buckets(BUCKETS)
			.instanceId(instanceId)
			.lockTtl(Duration.ofSeconds(1))
			.sweepInterval(Duration.ofMillis(500))
			.pollInterval(Duration.ofSeconds(1))
			.shutdownTimeout(Duration.ofMillis(400))
			.commandTimeout(Duration.ofSeconds(2));
	}

	/**
	 * Builds an engine with a migrator and subscribes it to every topic, recording each
	 * handler invocation.
	 */
	static Redeq start(AbstractRedisClient client, String instanceId, Recorder recorder) {
		Redeq redeq = engine(client, instanceId).build();
		for (TopicSpec spec : TOPICS) {
			redeq.subscribe(spec.name(), String.class, new Handler(spec, instanceId, recorder), spec.options());
		}
		return redeq;
	}

	/**
	 * Starts a daemon thread that reports every stall of this JVM longer than
	 * {@link #STALL} as (from, to) in System.nanoTime.
	 */
	static Thread watchStalls(StallListener listener) {
		Thread watcher = new Thread(() -> {
			long last = System.nanoTime();
			while (true) {
				try {
					NEVER.await(20, TimeUnit.MILLISECONDS);
				}
				catch (InterruptedException ex) {
					return;
				}
				long now = System.nanoTime();
				if (now - last > STALL.toNanos()) {
					listener.stalled(last, now);
				}
				last = now;
			}
		}, "model-stall-watch");
		watcher.setDaemon(true);
		watcher.start();
		return watcher;
	}

	/** Told about a stall of the JVM. */
	interface StallListener {

		void stalled(long from, long to);

	}

	/**
	 * One topic's subscription settings.
	 *
	 * @param name the topic
	 * @param concurrency handlers per engine
	 * @param maxAttempts deliveries before DEAD
	 * @param timeout handler timeout
	 * @param lease lease of an in-flight job (renewed at a third of it)
	 * @param backoff wait between attempts
	 */
	record TopicSpec(String name, int concurrency, int maxAttempts, Duration timeout, Duration lease, Backoff backoff) {

		SubscriptionOptions options() {
			return SubscriptionOptions.builder()
				.concurrency(this.concurrency)
				.maxAttempts(this.maxAttempts)
				.timeout(this.timeout)
				.lease(this.lease)
				.backoff(this.backoff)
				.build();
		}

		String idPrefix() {
			return this.name.charAt(0) + ID_MARK;
		}

	}

	/**
	 * What a job's handler does; written into the payload as {@code KIND/param/nonce}.
	 */
	enum Kind {

		/** Works {@code param} ms, then returns. */
		OK,

		/** Throws on attempts below {@code param}, then returns. */
		FLAKY,

		/** Always throws. */
		FAIL,

		/**
		 * Waits past its timeout and ends when interrupted (throws if never interrupted).
		 */
		HANG,

		/**
		 * On attempts up to {@code param} ignores the interrupt and runs
		 * {@link #ROGUE_OVERRUN} past its timeout; later attempts return at once.
		 */
		ROGUE

	}

	/**
	 * A handler behaviour plus a nonce that names the scheduled payload (one per accepted
	 * or refused schedule call).
	 */
	record Behavior(Kind kind, int param, String nonce) {

		static Behavior parse(String payload) {
			String[] parts = payload.split("/");
			return new Behavior(Kind.valueOf(parts[0]), Integer.parseInt(parts[1]), parts[2]);
		}

		String payload() {
			return this.kind + "/" + this.param + "/" + this.nonce;
		}

		/** Whether a job with this behaviour ends DEAD when nothing disturbs it. */
		boolean dies(int maxAttempts) {
			return switch (this.kind) {
				case OK -> false;
				case FLAKY -> this.param > maxAttempts;
				case FAIL, HANG -> true;
				case ROGUE -> this.param >= maxAttempts;
			};
		}

		/**
		 * The text of the exception attempt {@code attempt} throws, which the dead job's
		 * last error should show.
		 */
		String failureMessage(int attempt) {
			return "model failure of " + this.nonce + " on attempt " + attempt;
		}

		@Override
		public String toString() {
			return payload();
		}

	}

	/** Where handlers record their invocations. */
	interface Recorder {

		/** Records a start and returns the invocation's number within its engine. */
		long started(String engine, Delivery delivery, String nonce, long nanos);

		void ended(String engine, long invocation, long nanos, String outcome);

	}

	/**
	 * The handler of every engine: records start and end (System.nanoTime, which is
	 * CLOCK_MONOTONIC on Linux and so comparable between processes of one machine) and
	 * acts out the payload's behaviour. Every wait is bounded.
	 */
	static final class Handler implements JobHandler<String> {

		private final TopicSpec spec;

		private final String engine;

		private final Recorder recorder;

		Handler(TopicSpec spec, String engine, Recorder recorder) {
			this.spec = spec;
			this.engine = engine;
			this.recorder = recorder;
		}

		@Override
		public void handle(String payload, Delivery delivery) throws Exception {
			long start = System.nanoTime();
			Behavior behavior = Behavior.parse(payload);
			long invocation = this.recorder.started(this.engine, delivery, behavior.nonce(), start);
			String outcome = THREW;
			try {
				switch (behavior.kind()) {
					case OK -> {
						work(behavior.param());
						outcome = OK;
					}
					case FLAKY -> {
						if (delivery.attempt() < behavior.param()) {
							throw new IllegalStateException(behavior.failureMessage(delivery.attempt()));
						}
						outcome = OK;
					}
					case FAIL -> throw new IllegalStateException(behavior.failureMessage(delivery.attempt()));
					case HANG -> {
						long limit = start + this.spec.timeout().plus(HANG_LIMIT).toNanos();
						NEVER.await(limit - System.nanoTime(), TimeUnit.NANOSECONDS);
						outcome = OUTLIVED;
						throw new IllegalStateException("hanging handler of " + behavior.nonce()
								+ " was not interrupted within " + HANG_LIMIT + " after its timeout");
					}
					case ROGUE -> {
						if (delivery.attempt() <= behavior.param()) {
							ignoreInterruptsUntil(start + this.spec.timeout().plus(ROGUE_OVERRUN).toNanos());
							outcome = ROGUE;
						}
						else {
							outcome = OK;
						}
					}
				}
			}
			catch (InterruptedException ex) {
				outcome = INTERRUPTED;
				throw ex;
			}
			finally {
				this.recorder.ended(this.engine, invocation, System.nanoTime(), outcome);
			}
		}

		/** Simulated work: an interruptible wait of {@code millis}. */
		private static void work(int millis) throws InterruptedException {
			if (millis > 0) {
				NEVER.await(millis, TimeUnit.MILLISECONDS);
			}
		}

		private static void ignoreInterruptsUntil(long deadline) {
			boolean interrupted = false;
			long left;
			while ((left = deadline - System.nanoTime()) > 0) {
				try {
					NEVER.await(left, TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
