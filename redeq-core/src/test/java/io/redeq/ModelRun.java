package io.redeq;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.awaitility.core.ConditionTimeoutException;

import io.redeq.ModelOperations.Due;
import io.redeq.ModelState.Cause;
import io.redeq.ModelState.End;
import io.redeq.ModelState.JobModel;
import io.redeq.ModelState.Known;
import io.redeq.ModelWorkload.Behavior;
import io.redeq.ModelWorkload.Kind;
import io.redeq.ModelWorkload.TopicSpec;

import static org.awaitility.Awaitility.await;

/**
 * One seeded run of {@link ModelIntegrationTests}: starts the {@link ModelSystem}, drives
 * the {@link ModelOperations} with a disruption of each kind at seeded points, stops at a
 * checkpoint halfway and at the end, and checks with {@link ModelChecks}.
 *
 * <p>
 * The seed fixes the operations, their order, payload behaviours, due times, think times
 * and when each disruption happens: every operation draws from its own generator split
 * off the seed's, so an outcome that differs on replay never shifts the draws of the
 * operations after it. Thread timing is not reproducible, so a replay repeats the
 * workload, not necessarily the interleaving that failed.
 */
final class ModelRun {

	private final long seed;

	private final int ops;

	private final SplittableRandom random;

	private final long t0 = System.nanoTime();

	final ModelState state = new ModelState(this.t0);

	final InvocationLog log = new InvocationLog(
			(engine, from, to) -> this.state.disruption(Cause.STALL, engine, from, to));

	private final ModelSystem system = new ModelSystem(this.state, this.log);

	private final ModelOperations operations = new ModelOperations(this.state, this.log, this.system);

	ModelRun(long seed, int ops) {
		this.seed = seed;
		this.ops = ops;
		this.random = new SplittableRandom(seed);
	}

	/** Runs the whole scenario; problems are collected in {@link #state}, not thrown. */
	void run() {
		try (ModelSystem started = this.system) {
			started.start();
			this.state.note(null, "seed " + this.seed + ", " + this.ops + " operations, " + started);
			drive();
			finish();
		}
		catch (Throwable ex) {
			this.state.violation(null, "the run stopped with " + ex + "\n" + stackTrace(ex));
		}
	}

	long seed() {
		return this.seed;
	}

	Duration elapsed() {
		return Duration.ofNanos(System.nanoTime() - this.t0);
	}

	private void drive() {
		int killAt = at(0.15, 0.30);
		int restartAt = killAt + 3 + this.random.nextInt(15);
		int closeAt = at(0.35, 0.48);
		int pauseAt = at(0.55, 0.70);
		int redisAt = at(0.75, 0.90);
		int checkpointEvery = Math.max(100, Math.min(150, this.ops / 2));
		for (int op = 1; op <= this.ops; op++) {
			this.state.op(op);
			SplittableRandom r = this.random.split();
			this.system.resumeChild(false);
			if (op == killAt) {
				this.system.killChild();
			}
			if (op == restartAt) {
				this.system.restartChild();
			}
			if (op == closeAt) {
				this.system.closeEngine();
			}
			if (op == pauseAt) {
				this.system.pauseChild(700 + r.split().nextInt(1000));
			}
			if (op == redisAt) {
				restartRedis(r.split());
			}
			this.operations.operation(r);
			if (op % checkpointEvery == 0 && op < this.ops) {
				checkpoint("checkpoint after op " + op);
			}
			// think time: part of the seeded workload, not a wait for a condition
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(r.nextInt(40)));
		}
	}

	private int at(double from, double to) {
		return (int) Math.max(1, Math.round(this.ops * (from + this.random.nextDouble() * (to - from))));
	}

	/**
	 * Stops (SIGTERM) or kills (SIGKILL) Redis right after a burst of due jobs, so that
	 * claims and completions are on their way, for 0.3 to 3.5 s: sometimes longer than
	 * the command timeout (2 s), so that callers give up on commands that may still have
	 * run.
	 */
	private void restartRedis(SplittableRandom r) {
		boolean crash = r.nextBoolean();
		long down = 300 + r.nextInt(3200);
		List<JobModel> burst = new ArrayList<>();
		List<Behavior> behaviors = new ArrayList<>();
		List<Due> dues = new ArrayList<>();
		for (TopicSpec topic : ModelWorkload.TOPICS) {
			for (int i = 0; i < 2 * topic.concurrency() * 3; i++) {
				JobModel m = this.state.job(topic, topic.idPrefix() + "r" + i);
				Behavior behavior = (r.nextInt(4) == 0) ? new Behavior(Kind.FLAKY, 2, this.operations.nonce("n"))
						: new Behavior(Kind.OK, 50 + r.nextInt(150), this.operations.nonce("n"));
				Due due = Due.in("near", Duration.ofMillis(r.nextInt(300)));
				if (m.known == Known.FREE) {
					burst.add(m);
					behaviors.add(behavior);
					dues.add(due);
				}
			}
		}
		this.operations.scheduleFresh("burst before the Redis restart", burst, behaviors, dues);
		// how far into the burst Redis goes away is part of the seeded workload
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50 + r.nextInt(300)));
		this.system.restartRedis(crash, down);
	}

	/**
	 * Stops operating until every due job ended, then checks counts and dead jobs against
	 * the model.
	 */
	private void checkpoint(String name) {
		this.system.resumeChild(true);
		quiesce(name);
		this.system.awaitHandlersEnded();
		ModelChecks checks = new ModelChecks(this.state, this.log, this.system.admin());
		checks.stats(name);
		checks.deadJobs(name);
	}

	/**
	 * Finds every active job until it is gone or DEAD: every accepted, uncancelled job
	 * must end within 40 s.
	 */
	private void quiesce(String name) {
		try {
			await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).until(() -> {
				boolean quiet = true;
				for (JobModel m : this.state.jobs()) {
					if (m.known == Known.ACTIVE) {
						quiet &= this.operations.observe(m, "quiesce");
					}
				}
				return quiet;
			});
		}
		catch (ConditionTimeoutException ex) {
			List<String> stuck = new ArrayList<>();
			for (JobModel m : this.state.jobs()) {
				if (m.known == Known.ACTIVE) {
					stuck.add(m + " is "
							+ this.system.client().find(m.topic.name(), m.id).map(Object::toString).orElse("gone"));
				}
			}
			this.state.violation(null, name + ": jobs did not end within 40 s: " + stuck);
			for (JobModel m : this.state.jobs()) {
				if (m.known == Known.ACTIVE) {
					this.state.violation(m, "never ended (" + name + ")");
					this.operations.resync(m, "stuck");
				}
			}
		}
	}

	/**
	 * The end: a slot probe, far jobs ended, a last checkpoint, the checks over every
	 * invocation, the purge of dead jobs, and what Redis keeps.
	 */
	private void finish() {
		this.system.resumeChild(true);
		this.system.restartChild();
		probeSlots();
		SplittableRandom r = this.random.split();
		for (JobModel m : this.state.jobs()) {
			if (m.known == Known.FAR) {
				this.operations.endFar(m, r.nextBoolean());
			}
		}
		checkpoint("final check");
		for (JobModel m : this.state.jobs()) {
			if (m.known == Known.FAR) {
				this.operations.cancel(m); // taken over by a resync after it got stuck
			}
		}
		ModelChecks checks = new ModelChecks(this.state, this.log, this.system.admin());
		checks.invocations();
		checks.outcomes();
		checks.concurrency();
		for (TopicSpec topic : ModelWorkload.TOPICS) {
			List<JobModel> dead = this.state.jobs(topic, Known.DEAD);
			long purged = this.system.admin().purgeDead(topic.name());
			long now = System.nanoTime();
			this.state.note(null, "purgeDead " + topic.name() + " -> " + purged);
			if (purged != dead.size()) {
				this.state.violation(null, "purgeDead(" + topic.name() + ") removed " + purged + " jobs; the model has "
						+ dead.size() + " DEAD: " + dead.stream().map((m) -> m.id).toList());
			}
			for (JobModel m : dead) {
				m.current.close(End.PURGED, now);
				m.current = null;
				m.known = Known.FREE;
			}
		}
		checks.stats("after purge");
		checks.leaks(this.system.server(), this.operations.generatedIds());
	}

	/**
	 * After every disruption, a backlog of slow jobs in each topic: every live engine
	 * must run exactly its {@code concurrency} of them at once (a worker slot lost or
	 * doubled by a failed claim, a timeout or the outage shows here).
	 */
	private void probeSlots() {
		this.system.awaitChild();
		List<String> live = this.system.liveEngines();
		long from = System.nanoTime();
		for (TopicSpec topic : ModelWorkload.TOPICS) {
			List<JobModel> probes = new ArrayList<>();
			List<Behavior> behaviors = new ArrayList<>();
			List<Due> dues = new ArrayList<>();
			for (int i = 0; i < 8 * topic.concurrency() * live.size(); i++) {
				probes.add(this.state.job(topic, topic.idPrefix() + "p" + i));
				behaviors.add(new Behavior(Kind.OK, 400, this.operations.nonce("p")));
				dues.add(Due.in("now", Duration.ZERO));
			}
			this.operations.scheduleFresh("slot probe", probes, behaviors, dues);
		}
		quiesce("slot probe");
		this.system.awaitHandlersEnded();
		new ModelChecks(this.state, this.log, this.system.admin()).slots(live, from, System.nanoTime());
	}

	private static String stackTrace(Throwable ex) {
		StringWriter out = new StringWriter();
		ex.printStackTrace(new PrintWriter(out));
		return out.toString();
	}

}
