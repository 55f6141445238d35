package io.redeq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;

import io.redeq.ModelState.Cause;
import io.redeq.test.JavaProcess;
import io.redeq.test.RedisServer;

import static org.awaitility.Awaitility.await;

/**
 * The processes of a model run: a redis-server with AOF ({@code appendfsync always}),
 * engines in this JVM (e1, e2, then e3 after a close) and one engine in a child JVM (c1,
 * then c2 after a kill), plus watchers that measure stalls; and the disruptions the run
 * inflicts on them, each recorded in the {@link ModelState}.
 */
final class ModelSystem implements AutoCloseable {

	private final ModelState state;

	private final InvocationLog log;

	private final Map<String, Redeq> engines = new LinkedHashMap<>();

	private @Nullable Thread stallWatcher;

	private @Nullable Thread redisWatcher;

	private @Nullable RedisServer server;

	private @Nullable RedisClient lettuce;

	private @Nullable Path dir;

	private @Nullable Child child;

	private int children;

	private int engineGenerations;

	private long pausedAt;

	private long resumeAt;

	ModelSystem(ModelState state, InvocationLog log) {
		this.state = state;
		this.log = log;
	}

	/** Starts Redis, two engines here and one in a child JVM, and waits for the child. */
	void start() throws IOException {
		this.stallWatcher = ModelWorkload
			.watchStalls((from, to) -> this.state.disruption(Cause.STALL, ModelState.THIS_JVM, from, to));
		this.dir = Files.createTempDirectory("redeq-model-");
		this.server = new RedisServer().withAppendOnly().start();
		this.lettuce = RedisClient.create(this.server.uri());
		this.redisWatcher = watchRedis();
		this.child = startChild();
		startEngine("e1");
		startEngine("e2");
		awaitChild();
	}

	RedeqClient client() {
		return this.engines.values().iterator().next().client();
	}

	RedeqAdmin admin() {
		return this.engines.values().iterator().next().admin();
	}

	RedisServer server() {
		return this.server;
	}

	/** The engines that run now: those of this JVM and the child's. */
	List<String> liveEngines() {
		List<String> live = new ArrayList<>(this.engines.keySet());
		if (this.child != null) {
			live.add(this.child.id());
		}
		return live;
	}

	@Override
	public String toString() {
		return "redis " + this.server + ", engines " + liveEngines();
	}

	/**
	 * Pings Redis every 50 ms on a connection of its own and records a round trip longer
	 * than {@link ModelWorkload#STALL} as a stall of every engine: a Redis that stalls
	 * (an fsync with {@code appendfsync always} on a busy disk, CPU starvation) answers
	 * lease renewals late, so leases may expire.
	 */
	private Thread watchRedis() {
		RedisClient client = this.lettuce;
		Thread watcher = new Thread(() -> {
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				connection.setTimeout(Duration.ofSeconds(5));
				while (!Thread.currentThread().isInterrupted()) {
					long from = System.nanoTime();
					try {
						connection.sync().ping();
					}
					catch (RuntimeException ex) {
						// down: the outage is recorded as such
					}
					long to = System.nanoTime();
					if (to - from > ModelWorkload.STALL.toNanos()) {
						this.state.disruption(Cause.STALL, null, from, to);
					}
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
				}
			}
			catch (RuntimeException ex) {
				// the run is over
			}
		}, "model-redis-watch");
		watcher.setDaemon(true);
		watcher.start();
		return watcher;
	}

	private void startEngine(String name) {
		this.engines.put(name, ModelWorkload.start(this.lettuce, name, this.log));
	}

	private Child startChild() {
		String id = "c" + (++this.children);
		Path file = this.dir.resolve(id + ".log");
		try {
			Files.createFile(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.log.follow(file);
		JavaProcess process = JavaProcess.start(ModelChild.class, this.server.uri().toString(), id, file.toString());
		return new Child(id, process);
	}

	/** Starts a child JVM in place of a killed one. */
	void restartChild() {
		if (this.child == null) {
			this.child = startChild();
			this.state.note(null, "started child " + this.child.id());
		}
	}

	/** Waits until the child's engine runs. */
	void awaitChild() {
		this.child.process().awaitLine((line) -> line.startsWith("READY"), Duration.ofSeconds(60));
	}

	// ---- disruptions ------------------------------------------------------------------

	/** SIGKILL of the child while it runs a handler (if one comes along within 2 s). */
	void killChild() {
		Child doomed = this.child;
		if (doomed == null) {
			return;
		}
		awaitRunningHandler(doomed.id());
		long from = System.nanoTime();
		doomed.process().kill();
		long to = System.nanoTime();
		this.log.refresh();
		this.log.endOpen(doomed.id(), to, "killed");
		this.state.disruption(Cause.KILL, doomed.id(), from, to);
		this.child = null;
	}

	/**
	 * SIGSTOP of the child while it runs a handler, for {@code millis} past the longest
	 * lease; {@link #resumeChild} sends SIGCONT once that time is over.
	 */
	void pauseChild(long millis) {
		Child paused = this.child;
		if (paused == null) {
			return;
		}
		awaitChild();
		awaitRunningHandler(paused.id());
		signal(paused, "STOP");
		this.pausedAt = System.nanoTime();
		long longestLease = ModelWorkload.TOPICS.stream().mapToLong((t) -> t.lease().toNanos()).max().orElseThrow();
		this.resumeAt = this.pausedAt + longestLease + TimeUnit.MILLISECONDS.toNanos(millis);
	}

	/**
	 * Sends SIGCONT to a paused child once its pause is over (with {@code force}, waits
	 * for that).
	 */
	void resumeChild(boolean force) {
		if (this.pausedAt == 0 || this.child == null) {
			return;
		}
		if (force) {
			await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() >= this.resumeAt);
		}
		if (System.nanoTime() >= this.resumeAt) {
			signal(this.child, "CONT");
			this.state.disruption(Cause.PAUSE, this.child.id(), this.pausedAt, System.nanoTime());
			this.pausedAt = 0;
		}
	}

	private static void signal(Child target, String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(target.process().pid())).start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + target.process().pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Stops Redis (SIGTERM, or SIGKILL with {@code crash}) for {@code downMillis}, starts
	 * it again from its AOF, and waits until it answers.
	 */
	void restartRedis(boolean crash, long downMillis) {
		long from = System.nanoTime();
		if (crash) {
			this.server.kill();
		}
		else {
			this.server.stop();
		}
		// the outage's length is part of the seeded workload, not a wait for a condition
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(downMillis));
		this.server.start();
		await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> admin().stats("alpha") != null);
		this.state.disruption(Cause.REDIS, null, from, System.nanoTime());
		this.state.note(null,
				"redis " + (crash ? "killed" : "stopped") + " for " + downMillis + " ms and started again");
	}

	/**
	 * Closes the newest engine of this JVM gracefully while it runs a handler (if one
	 * comes along within 2 s), and starts a new one in its place.
	 */
	void closeEngine() {
		String name = this.engines.keySet().stream().reduce((a, b) -> b).orElseThrow();
		awaitRunningHandler(name);
		Redeq closing = this.engines.remove(name);
		long from = System.nanoTime();
		closing.close();
		this.state.disruption(Cause.CLOSE, name, from, System.nanoTime());
		startEngine("e" + (3 + this.engineGenerations++));
	}

	private void awaitRunningHandler(String engine) {
		try {
			await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(20)).until(() -> {
				this.log.refresh();
				return !this.log.open(List.of(engine)).isEmpty();
			});
		}
		catch (ConditionTimeoutException ex) {
			// disrupt it anyway
		}
	}

	/**
	 * Waits until no handler runs anywhere: rogue handlers end on their own within a
	 * second or two after their timeout.
	 */
	void awaitHandlersEnded() {
		try {
			await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).until(() -> {
				this.log.refresh();
				return this.log.all().stream().noneMatch(InvocationLog.Invocation::isOpen);
			});
		}
		catch (ConditionTimeoutException ex) {
			this.state.violation(null,
					"handler invocations still running 15 s after their jobs ended: " + this.log.all()
						.stream()
						.filter(InvocationLog.Invocation::isOpen)
						.map(this.state::describe)
						.toList());
		}
	}

	/** Stops everything and deletes the files. */
	@Override
	public void close() {
		try {
			resumeChild(true);
			awaitHandlersEnded();
		}
		catch (RuntimeException ex) {
			// the checks report what is wrong
		}
		if (this.child != null) {
			this.child.process().close();
		}
		this.engines.values().forEach(Redeq::close);
		if (this.stallWatcher != null) {
			this.stallWatcher.interrupt();
		}
		if (this.redisWatcher != null) {
			this.redisWatcher.interrupt();
			join(this.redisWatcher);
		}
		if (this.lettuce != null) {
			this.lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
		if (this.server != null) {
			this.server.close();
		}
		if (this.dir != null) {
			try (Stream<Path> files = Files.walk(this.dir)) {
				files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
			catch (IOException ex) {
				// a temp directory left behind
			}
		}
	}

	private static void join(Thread thread) {
		try {
			thread.join(10_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** A child JVM running one engine. */
	private record Child(String id, JavaProcess process) {

	}

}
