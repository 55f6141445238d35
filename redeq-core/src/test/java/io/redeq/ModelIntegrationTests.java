package io.redeq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A randomized, seeded model test: random sequences of operations and disruptions run
 * against real redis-server and JVM processes, and every observation is checked against
 * an in-memory model of what redeq promises (its guarantees and its public API).
 *
 * <h2>What it does</h2> One run starts a redis-server with AOF ({@code appendfsync
 * always}), two engines in this JVM and one in a child JVM ({@link ModelChild}), all on
 * one prefix, each with a migrator and a consumer of two topics whose settings differ
 * (attempts, timeouts, short leases, short backoffs: {@link ModelWorkload}). Then it
 * drives a seeded sequence of operations (default 240):
 * <ul>
 * <li>{@code schedule} of explicit ids drawn from a pool of 20 per topic (so duplicates
 * happen) with REPLACE, KEEP or REJECT, {@code scheduleAll} batches, and schedules with
 * generated ids; due in the past (never before 1970), now, near (0–500 ms) or far (5–20
 * minutes), as a delay or an instant;</li>
 * <li>{@code cancel}, {@code reschedule}, {@code find} and
 * {@code admin.requeueDead};</li>
 * <li>payloads that tell the handler what to do: succeed, throw on the first attempts
 * then succeed, always throw, hang past the timeout until interrupted, or ignore the
 * interrupt and run 800 ms past the timeout (every wait is bounded);</li>
 * <li>once per run, at seeded points: SIGKILL of the child JVM while it runs a handler
 * (restarted a few operations later), graceful close of an engine while it runs a handler
 * (replaced by a new one), SIGSTOP of the child past its leases and SIGCONT, and a Redis
 * stop or SIGKILL and restart from its AOF right after a burst of due jobs (so claims and
 * completions are on their way), down for 0.3 to 3.5 s (longer than the 2 s command
 * timeout at times).</li>
 * </ul>
 * Halfway and at the end it stops operating until every due job ended (checkpoints).
 * After the last disruption a backlog of slow jobs probes each engine's worker slots. At
 * the end far jobs are cancelled or made due at once, dead jobs are purged, and Redis is
 * scanned.
 *
 * <h2>The model</h2> For each id the model knows whether there is no job, a job DELAYED
 * for minutes (no handler can have it during the run), a DEAD job, or an active job
 * (anywhere in its life until a {@code find} says it is gone or DEAD). Where it is sure,
 * it checks each result exactly (cancel, reschedule and REJECT of a far job; KEEP keeps
 * it; find shows it DELAYED with its due time; nothing is found for a free id). Where a
 * job may be running or finishing, it accepts every legal result and learns from it, and
 * it only issues operations whose result it can read: KEEP and REJECT of an active job
 * are replaced by REPLACE, and scheduleAll batches hold no active job.
 *
 * <h2>Invariants</h2>
 * <ul>
 * <li>Every accepted, uncancelled job ends completed or DEAD: a job found gone had a
 * handler return normally for it (else it was lost), checkpoints wait at most 40 s for
 * every due job to end, and DEAD jobs are listed by {@code admin.deadJobs} with a reason,
 * their payload, all attempts used and, when the last attempt threw, that exception in
 * {@code lastError}.</li>
 * <li>The end is the one the payload's behaviour leads to; a job whose behaviour
 * completes may be DEAD only if one of its attempts was hit by a disruption.</li>
 * <li>No two handler invocations of one job overlap in time while a lease lives. Starts
 * and ends are recorded with System.nanoTime (CLOCK_MONOTONIC on Linux, comparable
 * between the processes of one machine), in this JVM and, through a file each child
 * appends to, in children. An overlap is allowed only where the first invocation had lost
 * its lease: it ran past its timeout ignoring the interrupt (the engine gives the attempt
 * up at the timeout and cannot stop a thread; this is the documented exception), its
 * process was paused (SIGSTOP), stalled or cut off from Redis from shortly before it
 * started (a late claim reply eats the lease too), or the second was claimed before a
 * pause of its own process and started right after it. A graceful close is not an excuse:
 * shutdown must not hand back a job whose handler still runs.</li>
 * <li>At-least-once without unexplained duplicates: each attempt number reaches a handler
 * once; no attempt is skipped (a claim that no handler ran must not cost an attempt)
 * unless a process was SIGKILLed meanwhile (a kill between the engine starting a handler
 * and the handler's first log line cannot be seen); after a handler returned normally
 * within its timeout the job runs again only if a kill, pause, stall or Redis outage may
 * have swallowed the completion; no payload runs after the cancel or replace that removed
 * it, and no payload that KEEP or REJECT refused ever runs.</li>
 * <li>Worker slots neither leak nor multiply: no engine ever runs more handlers of a
 * topic at once than its concurrency (a handler counts until its timeout), and with a
 * backlog after all disruptions every engine runs exactly that many.</li>
 * <li>{@code admin.stats(topic)} equals the model once quiet (delayed = far jobs, ready =
 * in flight = 0, dead = DEAD jobs), at each checkpoint and after the purge.</li>
 * <li>After every job ended and the DEAD were purged (purgeDead returns the model's
 * count), Redis holds only bounded metadata: the elements of every key of the prefix
 * (hash fields, zset and set members, list entries, non-empty strings) add up to at most
 * {@value ModelChecks#ELEMENTS_PER_BUCKET} × buckets, whatever the number of jobs, and no
 * element names a job.</li>
 * <li>No job is lost after the SIGKILL, the pause or the Redis restart: all of the above
 * hold across them.</li>
 * </ul>
 *
 * <h2>Stalls</h2> On a loaded 2-core machine a JVM stalls (GC, CPU starvation) and Redis
 * answers late (an {@code appendfsync always} fsync); with leases of 450 and 700 ms that
 * expires leases with no engine bug. Each JVM therefore measures its own stalls (a thread
 * that wakes every 20 ms reports gaps over 250 ms; children write them to their file) and
 * a watcher pings Redis every 50 ms. A stall of at least half a lease counts like a
 * SIGSTOP of that process (a Redis stall, of every process) wherever a lease loss may
 * explain an observation, never for a skipped attempt. Each run prints how many
 * observations a disruption explained, so a lenient run shows.
 *
 * <h2>Choices where the documents leave room</h2>
 * <ul>
 * <li>A DEAD job has ended its life, so it does not count as existing for a duplicate
 * policy: KEEP and REJECT schedule the new job in its place, as REPLACE does.</li>
 * <li>Whether {@code reschedule} revives a DEAD job is not settled (the client's javadoc
 * calls DEAD "waiting" for cancel only), so the model never asks.</li>
 * <li>Outcomes of calls that got no answer (RedeqUnavailableException) are unknown; the
 * model then takes the id over with a REPLACE and stops requiring what was there to
 * end.</li>
 * </ul>
 *
 * <h2>Replay and soak</h2> The seed is printed at the start and in every failure message;
 * {@code -Dredeq.model.seed=N} replays it (the same operations and disruption points;
 * thread timing may differ). {@code -Dredeq.model.ops=N} sets the operations per run.
 * {@code -Dredeq.soak.minutes=30} runs seeds one after another for that long (the first
 * is the given or a random seed, the next ones derived from it) and fails with every
 * failing seed. Each run writes its full trace to {@code target/model-runs/seed-N.txt}.
 */
class ModelIntegrationTests {

	private static final String REPLAY = "./mvnw -B -q -pl redeq-test-support -am install -DskipTests && "
			+ "./mvnw -B -pl redeq-core verify -Dit.test=ModelIntegrationTests -Dtest=ModelIntegrationTests "
			+ "-Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false -Dredeq.model.seed=";

	@Test
	void randomOperationsAndDisruptionsAgreeWithTheModel() {
		Long given = Long.getLong("redeq.model.seed");
		long first = (given != null) ? given : new SecureRandom().nextLong();
		int ops = Integer.getInteger("redeq.model.ops", 240);
		long soakMinutes = Long.getLong("redeq.soak.minutes", 0);
		long deadline = System.nanoTime() + Duration.ofMinutes(soakMinutes).toNanos();
		SplittableRandom seeds = new SplittableRandom(first);
		List<String> failures = new ArrayList<>();
		int runs = 0;
		long seed = first;
		do {
			runs++;
			System.out.println(
					"[model] seed " + seed + " (run " + runs + "), " + ops + " operations. Replay: " + REPLAY + seed);
			ModelRun run = new ModelRun(seed, ops);
			run.run();
			String report = run.state.report(seed, REPLAY + seed, run.log);
			writeTrace(run, report);
			int problems = run.state.violations().size();
			System.out.println(String.format(Locale.ROOT,
					"[model] seed %d: %d problem(s), %d invocations, %.1f s; explained by disruptions: %s", seed,
					problems, run.log.all().size(), run.elapsed().toMillis() / 1000.0, run.state.excused()));
			if (problems > 0) {
				System.out.println(report);
				failures.add(report);
			}
			seed = seeds.nextLong();
		}
		while (System.nanoTime() < deadline);
		assertThat(failures).as("model runs that failed (%d of %d; first seed %d)", failures.size(), runs, first)
			.isEmpty();
	}

	/**
	 * Due times before 1970 cannot be stored exactly (scripts keep non-negative
	 * milliseconds), and such a job was once accepted and never delivered: refuse it at
	 * the call.
	 */
	@Test
	void aDueTimeBefore1970IsRefusedAtTheCall() {
		try (RedisServer server = new RedisServer().start()) {
			RedisClient lettuce = RedisClient.create(server.uri());
			try (Redeq redeq = Redeq.builder(lettuce).build()) {
				Instant before1970 = Instant.ofEpochMilli(-1000);
				assertThatIllegalArgumentException().as("scheduleAt(%s)", before1970)
					.isThrownBy(() -> redeq.client().scheduleAt("past", "x", before1970));
				assertThatIllegalArgumentException().as("schedule(Job ... dueAt(%s))", before1970)
					.isThrownBy(() -> redeq.client()
						.schedule(Job.builder("past").id("p1").payload("x").dueAt(before1970).build()));
				assertThat(redeq.client().find("past", "p1")).isEmpty();
			}
			finally {
				lettuce.shutdown();
			}
		}
	}

	private static void writeTrace(ModelRun run, String report) {
		Path dir = Path.of("target", "model-runs");
		try {
			Files.createDirectories(dir);
			List<String> lines = new ArrayList<>(run.state.trace());
			lines.add("");
			lines.add("Invocations:");
			run.log.all().forEach((i) -> lines.add(run.state.describe(i) + " " + i.topic() + "/" + i.id()));
			lines.add("");
			lines.add(report);
			Files.write(dir.resolve("seed-" + run.seed() + ".txt"), lines);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
