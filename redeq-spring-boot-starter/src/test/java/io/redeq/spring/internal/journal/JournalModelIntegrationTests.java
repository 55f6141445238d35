package io.redeq.spring.internal.journal;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A randomized, seeded model test of the journal: random operations and faults on three
 * instances (application contexts with the journal on) sharing one redis-server that
 * keeps nothing on disk and one PostgreSQL server, and every handler run and journal row
 * checked against an in-memory model of what docs/journal.md promises.
 *
 * <h2>What a run does</h2> About 80 operations, each on a random instance, on 24 ids (so
 * a schedule often REPLACEs an earlier job under its id): schedules due within 1.5 s of
 * jobs that return, fail once then return, or always fail (a quarter with
 * {@code maxAttempts(1)}), cancels and reschedules, each outside a transaction, in a
 * {@code DataSourceTransactionManager} transaction that commits or rolls back, or in one
 * whose process "dies" between the commit and redeq's send (a synchronization ordered
 * first throws in {@code afterCommit}, so only the outbox relay can send). At seeded
 * points: Redis loses its data ({@code FLUSHALL} or a restart without persistence), then
 * every instance calls {@code recoverFromJournal()} at once or the first instance's
 * {@code auto-recover} does; Redis refuses every write for a few operations
 * ({@code CONFIG SET maxmemory 1} with {@code noeviction}); the database is stopped for a
 * few operations. Then it waits (60 s at most) until no job is left but dead ones and no
 * row is pending.
 *
 * <h2>Invariants</h2> ({@link JournalModel}, runs recorded by
 * {@link JournalModelRecorder})
 * <ul>
 * <li>every committed job ran to its end: it completed, or failed all its own attempts; a
 * rolled-back job (or one Redis refused) never ran, and no row holds it;</li>
 * <li>no job ran again after it completed, no attempt ran twice, and a
 * {@code maxAttempts(1)} job ran once, except where docs/journal.md says it can: Redis
 * lost its data while the job ran or after it ended and before the recovery finished (its
 * outcome could still be in a writer's queue: the writers are flushed just before the
 * loss), Redis refused its acknowledgement, or the database was down when its transaction
 * committed (the relay sent it again). Each such excuse is counted and printed;</li>
 * <li>a job replaced or cancelled for sure never started after that; a job whose row is
 * {@code CANCELLED} never started after the row's {@code finished_at};</li>
 * <li>every job's row ends finished, holding the last job scheduled under its id, in the
 * state the job ended in: {@code COMPLETED} only if a run returned, {@code DEAD} only if
 * its last attempt failed (or a loss hit it) and as Redis holds it, {@code CANCELLED}
 * only if a cancel reached it and it did not then run to completion.</li>
 * </ul>
 * A schedule whose outcome the caller cannot know (an error other than a refusal) makes
 * its id's checks weaker; the report lists those ids.
 *
 * <h2>Seeds</h2> The seed is printed at the start and in every failure message with the
 * command that replays it: {@code -Dredeq.journal.model.seed=N} (the same operations and
 * fault points; thread timing may differ). By default the three seeds of
 * {@link #CI_SEEDS} run, so that the build checks the same histories each time;
 * {@code -Dredeq.journal.model.seeds=K} runs K random ones (the first random, the next
 * derived from it), {@code -Dredeq.journal.model.ops=N} sets the operations per seed, and
 * {@code -Dredeq.journal.model.soak.minutes=M} runs seeds one after another for M
 * minutes. {@code -Dredeq.journal.model.refusals=false} leaves out the refused writes.
 * Schedules only the relay sends (a transaction whose process dies after the commit, or
 * whose send Redis refuses) reuse the ids of jobs that may still wait or run, so a
 * transaction replacing a running job, and the relay sending the new version once the old
 * one ended, are part of the histories;
 * {@code -Dredeq.journal.model.relayed-replaces=false} gives them fresh ids instead.
 */
class JournalModelIntegrationTests {

	private static final String REPLAY = "./mvnw -B -o -pl redeq-spring-boot-starter -am verify "
			+ "-Dtest=JournalModelIntegrationTests -Dsurefire.failIfNoSpecifiedTests=false -Dredeq.journal.model.seed=";

	/**
	 * The seeds the build runs: histories that cover every kind of operation and fault
	 * (each has a data loss, refused writes and a database outage) and that the journal
	 * is known to get right. Random seeds, with the soak properties, look for new ones.
	 */
	private static final long[] CI_SEEDS = { -6115371544158287056L, 4933096031549281059L, -4302006200839745687L };

	@Test
	void randomOperationsAndFaultsAgreeWithTheJournalModel() throws Exception {
		Long given = Long.getLong("redeq.journal.model.seed");
		long soakMinutes = Long.getLong("redeq.journal.model.soak.minutes", 0);
		Integer randomSeeds = Integer.getInteger("redeq.journal.model.seeds");
		boolean fixed = given == null && randomSeeds == null && soakMinutes == 0;
		long first = (given != null) ? given : fixed ? CI_SEEDS[0] : new SecureRandom().nextLong();
		int seeds = (given != null) ? 1 : fixed ? CI_SEEDS.length : (randomSeeds != null) ? randomSeeds : 1;
		int ops = Integer.getInteger("redeq.journal.model.ops", 80);
		boolean refusals = Boolean.parseBoolean(System.getProperty("redeq.journal.model.refusals", "true"));
		boolean relayedReplaces = Boolean
			.parseBoolean(System.getProperty("redeq.journal.model.relayed-replaces", "true"));
		long deadline = System.nanoTime() + Duration.ofMinutes(soakMinutes).toNanos();
		SplittableRandom derived = new SplittableRandom(first);
		List<String> failures = new ArrayList<>();
		JournalModelRecorder recorder = new JournalModelRecorder();
		int runs = 0;
		try (JournalModelSystem system = new JournalModelSystem(recorder)) {
			system.start();
			long seed = first;
			while (runs < seeds || System.nanoTime() < deadline) {
				runs++;
				System.out.println("[journal model] seed " + seed + " (run " + runs + "), " + ops + " operations, "
						+ system + ". Replay: " + REPLAY + seed);
				long start = System.nanoTime();
				JournalModelRun run = new JournalModelRun(seed, ops, runs, system, recorder, refusals, relayedReplaces);
				run.run();
				int problems = run.model.violations().size();
				System.out.println(String.format(Locale.ROOT,
						"[journal model] seed %d: %d problem(s), %.1f s; operations %s; explained by faults %s", seed,
						problems, (System.nanoTime() - start) / 1e9, run.model.operations(), run.model.excused()));
				if (problems > 0) {
					String report = run.report(REPLAY + seed);
					System.out.println(report);
					failures.add(report);
				}
				seed = (fixed && runs < CI_SEEDS.length) ? CI_SEEDS[runs] : derived.nextLong();
			}
		}
		assertThat(failures)
			.as("journal model runs that failed (%d of %d; first seed %d)", failures.size(), runs, first)
			.isEmpty();
	}

}
