package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;

import io.redeq.ModelState.End;
import io.redeq.ModelState.JobModel;
import io.redeq.ModelState.Known;
import io.redeq.ModelWorkload.Behavior;
import io.redeq.ModelWorkload.Kind;
import io.redeq.ModelWorkload.TopicSpec;

import static org.awaitility.Awaitility.await;

/**
 * The operations of a model run and what their results teach the model: each one checks
 * the result exactly where the model is sure of the job's state, and otherwise accepts
 * every legal result and updates the model with it.
 */
final class ModelOperations {

	/** Explicit ids per topic, few enough that duplicates happen often. */
	static final int POOL = 20;

	/** Jobs due at least this far away stay DELAYED for the whole run. */
	static final Duration FAR = Duration.ofMinutes(5);

	private final ModelState state;

	private final InvocationLog log;

	private final ModelSystem system;

	private final List<String> generatedIds = new ArrayList<>();

	private int nonces;

	ModelOperations(ModelState state, InvocationLog log, ModelSystem system) {
		this.state = state;
		this.log = log;
		this.system = system;
	}

	/** Ids that redeq generated in this run. */
	List<String> generatedIds() {
		return List.copyOf(this.generatedIds);
	}

	/** A fresh nonce, naming one scheduled payload. */
	String nonce(String prefix) {
		return prefix + (++this.nonces);
	}

	/** One seeded operation on a random job (or a batch) of a random topic. */
	void operation(SplittableRandom r) {
		int roll = r.nextInt(100);
		TopicSpec topic = ModelWorkload.TOPICS.get(r.nextInt(ModelWorkload.TOPICS.size()));
		JobModel job = pick(r, topic);
		if (roll < 42) {
			schedule(r, job);
		}
		else if (roll < 50) {
			scheduleAll(r);
		}
		else if (roll < 54) {
			scheduleWithGeneratedId(r, topic);
		}
		else if (roll < 68) {
			cancel(job);
		}
		else if (roll < 80) {
			reschedule(r, job);
		}
		else if (roll < 95) {
			observe(job, "find");
		}
		else {
			requeue(job);
		}
	}

	private JobModel pick(SplittableRandom r, TopicSpec topic) {
		int n = r.nextInt(POOL);
		int generated = r.nextInt(100);
		List<JobModel> ofTopic = this.generatedIds.stream()
			.map((id) -> this.state.existing(topic.name(), id))
			.filter((m) -> m != null)
			.toList();
		if (generated < 15 && !ofTopic.isEmpty()) {
			return ofTopic.get(generated % ofTopic.size());
		}
		return this.state.job(topic, topic.idPrefix() + String.format("%02d", n));
	}

	/**
	 * Schedules fresh jobs (REJECT, so a leftover would show) in one batch, for a burst
	 * or a probe: ids the operations never pick.
	 */
	void scheduleFresh(String why, List<JobModel> jobs, List<Behavior> behaviors, List<Due> dues) {
		List<Job> batch = new ArrayList<>();
		for (int i = 0; i < jobs.size(); i++) {
			batch.add(job(jobs.get(i), behaviors.get(i), dues.get(i), Duplicate.REJECT));
		}
		long start = System.nanoTime();
		this.system.client().scheduleAll(batch);
		for (int i = 0; i < jobs.size(); i++) {
			this.state.note(jobs.get(i), why + ": scheduleAll REJECT " + behaviors.get(i) + " due " + dues.get(i));
			begin(jobs.get(i), behaviors.get(i), dues.get(i), start);
		}
	}

	/**
	 * Ends a job DELAYED for minutes before the run ends: cancels it, or makes it due at
	 * once.
	 */
	void endFar(JobModel m, boolean cancel) {
		if (cancel) {
			cancel(m);
			return;
		}
		boolean moved = this.system.client().reschedule(m.topic.name(), m.id, Duration.ZERO);
		this.state.note(m, "reschedule to now -> " + moved + " (model: " + m + ")");
		if (moved) {
			rescheduled(m, Due.in("now", Duration.ZERO));
		}
		else {
			this.state.violation(m, "reschedule of a job DELAYED for minutes returned false");
			resync(m, "final reschedule refused");
			cancel(m);
		}
	}

	// ---- what to schedule -------------------------------------------------------------

	private Behavior behavior(SplittableRandom r) {
		int roll = r.nextInt(100);
		String nonce = nonce("n");
		if (roll < 58) {
			return new Behavior(Kind.OK, r.nextInt(60), nonce);
		}
		if (roll < 74) {
			return new Behavior(Kind.FLAKY, 2 + r.nextInt(3), nonce);
		}
		if (roll < 88) {
			return new Behavior(Kind.FAIL, 0, nonce);
		}
		if (roll < 94) {
			return new Behavior(Kind.HANG, 0, nonce);
		}
		return new Behavior(Kind.ROGUE, 1, nonce);
	}

	/**
	 * A due time: in the past (never before 1970), now, near (0–500 ms) or far (minutes),
	 * as a delay or an instant.
	 */
	private Due due(SplittableRandom r) {
		int roll = r.nextInt(100);
		boolean asInstant = r.nextBoolean();
		if (roll < 20) {
			return Due.at("past", Instant.now().minusMillis(1 + r.nextInt(3000)));
		}
		if (roll < 30) {
			return Due.in("now", Duration.ZERO);
		}
		if (roll < 75) {
			Duration near = Duration.ofMillis(r.nextInt(501));
			return asInstant ? Due.at("near", Instant.now().plus(near)) : Due.in("near", near);
		}
		Duration far = FAR.plusSeconds(r.nextInt(15 * 60));
		return asInstant ? Due.at("far", Instant.now().plus(far)) : Due.in("far", far);
	}

	private static Duplicate policy(SplittableRandom r) {
		int roll = r.nextInt(4);
		return (roll < 2) ? Duplicate.REPLACE : (roll == 2) ? Duplicate.KEEP : Duplicate.REJECT;
	}

	static Job job(JobModel m, Behavior behavior, Due due, Duplicate policy) {
		Job.Builder builder = Job.builder(m.topic.name()).id(m.id).payload(behavior.payload()).onDuplicate(policy);
		return ((due.at() != null) ? builder.dueAt(due.at()) : builder.delay(due.delay())).build();
	}

	// ---- operations -------------------------------------------------------------------

	private enum Outcome {

		ACCEPTED, DUPLICATE, UNANSWERED

	}

	private void schedule(SplittableRandom r, JobModel m) {
		Duplicate policy = policy(r);
		Behavior behavior = behavior(r);
		Due due = due(r);
		if (m.known == Known.ACTIVE) {
			// KEEP and REJECT of a job that may finish at any moment have
			// no observable outcome
			policy = Duplicate.REPLACE;
		}
		Instant wallStart = Instant.now();
		long start = System.nanoTime();
		Outcome outcome;
		try {
			String id = this.system.client().schedule(job(m, behavior, due, policy));
			outcome = Outcome.ACCEPTED;
			if (!m.id.equals(id)) {
				this.state.violation(m, "schedule returned id " + id + " for a job with id " + m.id);
			}
		}
		catch (DuplicateJobException ex) {
			outcome = Outcome.DUPLICATE;
		}
		catch (RedeqUnavailableException ex) {
			outcome = Outcome.UNANSWERED;
		}
		catch (RuntimeException ex) {
			this.state.violation(m, "schedule " + policy + " threw " + ex);
			outcome = Outcome.UNANSWERED;
		}
		applySchedule(m, "schedule", policy, behavior, due, outcome, start, System.nanoTime(), wallStart);
	}

	private void scheduleAll(SplittableRandom r) {
		int size = 2 + r.nextInt(4);
		List<JobModel> batch = new ArrayList<>();
		for (int i = 0; i < 20 && batch.size() < size; i++) {
			JobModel m = pick(r, ModelWorkload.TOPICS.get(r.nextInt(ModelWorkload.TOPICS.size())));
			if (m.known != Known.ACTIVE && !batch.contains(m)) {
				batch.add(m);
			}
		}
		List<Duplicate> policies = new ArrayList<>();
		List<Behavior> behaviors = new ArrayList<>();
		List<Due> dues = new ArrayList<>();
		List<Job> jobs = new ArrayList<>();
		boolean rejectionExpected = false;
		for (JobModel m : batch) {
			policies.add(policy(r));
			behaviors.add(behavior(r));
			dues.add(due(r));
			jobs.add(job(m, behaviors.get(behaviors.size() - 1), dues.get(dues.size() - 1),
					policies.get(policies.size() - 1)));
			rejectionExpected |= m.known == Known.FAR && policies.get(policies.size() - 1) == Duplicate.REJECT;
		}
		Instant wallStart = Instant.now();
		long start = System.nanoTime();
		boolean threw = false;
		boolean unanswered = false;
		try {
			List<String> ids = this.system.client().scheduleAll(jobs);
			if (!ids.equals(batch.stream().map((m) -> m.id).toList())) {
				this.state.violation(batch.get(0), "scheduleAll returned ids " + ids + " for " + batch);
			}
		}
		catch (DuplicateJobException ex) {
			threw = true;
		}
		catch (RedeqUnavailableException ex) {
			unanswered = true;
		}
		long end = System.nanoTime();
		if (!unanswered && threw != rejectionExpected) {
			this.state.violation(batch.get(0),
					"scheduleAll of " + batch + " with " + policies
							+ (threw ? " threw DuplicateJobException though no job in it is REJECT of a waiting job"
									: " returned normally though a REJECT in it duplicates a DELAYED job"));
		}
		for (int i = 0; i < batch.size(); i++) {
			JobModel m = batch.get(i);
			Outcome outcome = unanswered ? Outcome.UNANSWERED
					: (m.known == Known.FAR && policies.get(i) == Duplicate.REJECT) ? Outcome.DUPLICATE
							: Outcome.ACCEPTED;
			applySchedule(m, "scheduleAll", policies.get(i), behaviors.get(i), dues.get(i), outcome, start, end,
					wallStart);
		}
	}

	private void scheduleWithGeneratedId(SplittableRandom r, TopicSpec topic) {
		Behavior behavior = behavior(r);
		Due due = due(r);
		long start = System.nanoTime();
		String id;
		try {
			id = (due.at() != null) ? this.system.client().scheduleAt(topic.name(), behavior.payload(), due.at())
					: this.system.client().schedule(topic.name(), behavior.payload(), due.delay());
		}
		catch (RedeqUnavailableException ex) {
			this.state.violation(null, "schedule with a generated id in topic " + topic.name()
					+ " got no answer though Redis is up: " + ex);
			return;
		}
		this.generatedIds.add(id);
		JobModel m = this.state.job(topic, id);
		this.state.note(m, "schedule (generated id) " + behavior + " due " + due + " -> " + id);
		if (m.known != Known.FREE) {
			this.state.violation(m, "a generated id was handed out twice");
		}
		begin(m, behavior, due, start);
	}

	/**
	 * Applies a schedule's outcome to the model, checking it where the model is sure of
	 * the job's state.
	 */
	private void applySchedule(JobModel m, String op, Duplicate policy, Behavior behavior, Due due, Outcome outcome,
			long start, long end, Instant wallStart) {
		this.state.note(m, op + " " + policy + " " + behavior + " due " + due + " -> " + outcome + " (model: " + m.known
				+ ((m.current != null) ? " " + m.current : "") + ")");
		if (outcome == Outcome.UNANSWERED) {
			m.uncertain.add(this.state.incarnation(m, behavior, start, due.instant(), false));
			resync(m, "unanswered " + op);
			return;
		}
		boolean accepted = outcome == Outcome.ACCEPTED;
		switch (m.known) {
			case FREE -> {
				if (accepted) {
					begin(m, behavior, due, start);
				}
				else {
					this.state.violation(m, policy + " of an id that has no job threw DuplicateJobException");
					this.state.phantom(behavior, "refused");
				}
			}
			case FAR -> {
				if (policy == Duplicate.REPLACE && accepted) {
					replace(m, behavior, due, start, end);
				}
				else if (policy == Duplicate.KEEP && accepted) {
					this.state.phantom(behavior, "KEEP kept the DELAYED job");
				}
				else if (policy == Duplicate.REJECT && !accepted) {
					this.state.phantom(behavior, "REJECT refused it");
				}
				else if (!accepted) {
					this.state.violation(m, policy + " of a DELAYED job threw DuplicateJobException");
					this.state.phantom(behavior, "refused");
				}
				else {
					this.state.violation(m, "REJECT of a DELAYED job's id returned normally");
					m.uncertain.add(this.state.incarnation(m, behavior, start, due.instant(), false));
					resync(m, "REJECT accepted a duplicate");
				}
			}
			case DEAD -> scheduledOverDead(m, policy, behavior, due, accepted, start, end, wallStart);
			case ACTIVE -> {
				if (accepted) {
					replace(m, behavior, due, start, end);
				}
				else {
					this.state.note(m, "REPLACE refused: the job is running");
				}
			}
		}
	}

	/**
	 * A DEAD job has ended its life (done and DEAD are a job's ends), so it does not
	 * count as existing: every duplicate policy schedules the new job in its place, as
	 * REPLACE always did. Checked through find: the job found must be the new one
	 * (created during the call), or already gone.
	 */
	private void scheduledOverDead(JobModel m, Duplicate policy, Behavior behavior, Due due, boolean accepted,
			long start, long end, Instant wallStart) {
		if (!accepted) {
			this.state.violation(m, policy + " of a DEAD job's id threw DuplicateJobException: "
					+ "the DEAD job was treated as existing, and the new job was not scheduled");
			this.state.phantom(behavior, "refused because of a DEAD job");
			return;
		}
		Optional<JobInfo> found;
		try {
			found = this.system.client().find(m.topic.name(), m.id);
		}
		catch (RedeqUnavailableException ex) {
			m.uncertain.add(this.state.incarnation(m, behavior, start, due.instant(), false));
			resync(m, "unanswered find after a schedule over a DEAD job");
			return;
		}
		if (found.isPresent() && found.get().createdAt().isBefore(wallStart.minusMillis(50))) {
			this.state.violation(m, policy + " of a DEAD job's id was accepted but left the DEAD job in place ("
					+ found.get() + "): the DEAD job was treated as existing, and the new job was not scheduled");
			this.state.phantom(behavior, "kept because of a DEAD job");
			return;
		}
		replace(m, behavior, due, start, end);
	}

	void begin(JobModel m, Behavior behavior, Due due, long start) {
		m.current = this.state.incarnation(m, behavior, start, due.instant(), true);
		m.known = due.isFar() ? Known.FAR : Known.ACTIVE;
	}

	private void replace(JobModel m, Behavior behavior, Due due, long start, long end) {
		if (m.current != null) {
			m.current.close(End.REPLACED, end);
		}
		begin(m, behavior, due, start);
	}

	void cancel(JobModel m) {
		long start = System.nanoTime();
		boolean cancelled;
		try {
			cancelled = this.system.client().cancel(m.topic.name(), m.id);
		}
		catch (RedeqUnavailableException ex) {
			resync(m, "unanswered cancel");
			return;
		}
		long end = System.nanoTime();
		this.state.note(m, "cancel -> " + cancelled + " (model: " + m + ")");
		switch (m.known) {
			case FREE -> {
				if (cancelled) {
					this.state.violation(m, "cancel returned true for an id that has no job");
				}
			}
			case FAR, DEAD -> {
				if (cancelled) {
					cancelled(m, end);
				}
				else {
					this.state.violation(m, "cancel of a "
							+ ((m.known == Known.FAR) ? "job DELAYED for minutes" : "DEAD job") + " returned false");
					resync(m, "cancel refused");
				}
			}
			case ACTIVE -> {
				if (cancelled) {
					checkNotCompleted(m, "cancel", start);
					cancelled(m, end);
				}
			}
		}
	}

	private void cancelled(JobModel m, long end) {
		m.current.close(End.CANCELLED, end);
		m.current = null;
		m.known = Known.FREE;
	}

	private void reschedule(SplittableRandom r, JobModel m) {
		Due due = due(r);
		if (m.known == Known.DEAD) {
			// Whether reschedule revives a DEAD job is not settled (cancel's javadoc
			// counts DEAD as waiting, reschedule's does not say), so the model
			// does not ask.
			observe(m, "find");
			return;
		}
		long start = System.nanoTime();
		boolean moved;
		try {
			moved = (due.at() != null) ? this.system.client().reschedule(m.topic.name(), m.id, due.at())
					: this.system.client().reschedule(m.topic.name(), m.id, due.delay());
		}
		catch (RedeqUnavailableException ex) {
			resync(m, "unanswered reschedule");
			return;
		}
		this.state.note(m, "reschedule to " + due + " -> " + moved + " (model: " + m + ")");
		switch (m.known) {
			case FREE -> {
				if (moved) {
					this.state.violation(m, "reschedule returned true for an id that has no job");
					resync(m, "reschedule of nothing");
				}
			}
			case FAR -> {
				if (moved) {
					rescheduled(m, due);
				}
				else {
					this.state.violation(m, "reschedule of a job DELAYED for minutes returned false");
					resync(m, "reschedule refused");
				}
			}
			case ACTIVE -> {
				if (moved) {
					checkNotCompleted(m, "reschedule", start);
					rescheduled(m, due);
				}
			}
			case DEAD -> throw new IllegalStateException();
		}
	}

	void rescheduled(JobModel m, Due due) {
		m.current.due = due.instant();
		m.known = due.isFar() ? Known.FAR : Known.ACTIVE;
	}

	private void requeue(JobModel m) {
		if (m.known == Known.ACTIVE) {
			observe(m, "find");
			return;
		}
		long start = System.nanoTime();
		boolean requeued;
		try {
			requeued = this.system.admin().requeueDead(m.topic.name(), m.id);
		}
		catch (RedeqUnavailableException ex) {
			resync(m, "unanswered requeueDead");
			return;
		}
		this.state.note(m, "requeueDead -> " + requeued + " (model: " + m + ")");
		if (m.known == Known.DEAD) {
			if (requeued) {
				m.current.rounds.add(new ModelState.Round(start));
				m.known = Known.ACTIVE;
			}
			else {
				this.state.violation(m, "requeueDead of a DEAD job returned false");
				resync(m, "requeue refused");
			}
		}
		else if (requeued) {
			this.state.violation(m, "requeueDead returned true for a job that is not DEAD (model: " + m.known + ")");
			resync(m, "requeue of a job that is not DEAD");
		}
	}

	/**
	 * Finds a job and checks what the model is sure of; a job the model lets run learns
	 * its end here.
	 */
	boolean observe(JobModel m, String op) {
		Optional<JobInfo> found;
		try {
			found = this.system.client().find(m.topic.name(), m.id);
		}
		catch (RedeqUnavailableException ex) {
			this.state.note(m, op + " -> no answer");
			return false;
		}
		long now = System.nanoTime();
		this.log.refresh();
		if (!op.equals("quiesce") || found.isEmpty() || found.get().state() == JobState.DEAD) {
			this.state.note(m, op + " -> " + found.map(Object::toString).orElse("none") + " (model: " + m + ")");
		}
		switch (m.known) {
			case FREE -> {
				if (found.isPresent()) {
					this.state.violation(m, "find shows " + found.get() + " for an id that has no job");
					resync(m, "a job where none should be");
				}
			}
			case FAR -> {
				if (found.isEmpty() || found.get().state() != JobState.DELAYED) {
					this.state.violation(m,
							"a job DELAYED for minutes is " + found.map(Object::toString).orElse("gone"));
					resync(m, "a far job is not DELAYED");
				}
				else if (Duration.between(m.current.due, found.get().dueAt()).abs().toMillis() > 5000) {
					this.state.violation(m, "due at " + found.get().dueAt() + " but scheduled for " + m.current.due);
				}
			}
			case DEAD -> {
				if (found.isEmpty() || found.get().state() != JobState.DEAD) {
					this.state.violation(m, "a DEAD job is " + found.map(Object::toString).orElse("gone"));
					resync(m, "a DEAD job is not DEAD");
				}
			}
			case ACTIVE -> {
				if (found.isEmpty()) {
					ended(m, now);
				}
				else if (found.get().state() == JobState.DEAD) {
					died(m, found.get(), now);
				}
			}
		}
		return m.known != Known.ACTIVE;
	}

	/**
	 * A job found gone that nobody cancelled: a handler must have returned normally for
	 * its current round.
	 */
	private void ended(JobModel m, long now) {
		ModelState.Incarnation current = m.current;
		ModelChecks checks = new ModelChecks(this.state, this.log, this.system.admin());
		List<InvocationLog.Invocation> round = this.log.of(m.topic.name(), m.id)
			.stream()
			.filter((i) -> i.nonce().equals(current.behavior.nonce())
					&& current.roundAt(i.startNanos()) == current.round())
			.toList();
		boolean returned = round.stream().anyMatch((i) -> i.outcome().equals(ModelWorkload.OK))
				|| round.stream().anyMatch((i) -> checks.returnedLateAfterStall(i, m.topic));
		if (returned) {
			current.close(End.COMPLETED, now);
		}
		else {
			this.state.violation(m, "the job " + current + " is gone, but no handler returned normally for it and "
					+ "nobody cancelled it: it was lost");
			current.close(End.LOST, now);
		}
		m.current = null;
		m.known = Known.FREE;
	}

	private void died(JobModel m, JobInfo info, long now) {
		m.current.round().end(End.DEAD, now);
		m.known = Known.DEAD;
		if (info.attempts() != m.topic.maxAttempts()) {
			this.state.violation(m, "DEAD after " + info.attempts() + " attempts, but the topic allows "
					+ m.topic.maxAttempts() + ": " + info);
		}
	}

	/**
	 * A cancel or reschedule that found the job waiting, after a handler had returned
	 * normally for it, with no crash, pause or outage since that could have undone the
	 * completion.
	 */
	private void checkNotCompleted(JobModel m, String op, long at) {
		this.log.refresh();
		ModelState.Incarnation current = m.current;
		for (InvocationLog.Invocation i : this.log.of(m.topic.name(), m.id)) {
			if (i.nonce().equals(current.behavior.nonce()) && current.roundAt(i.startNanos()) == current.round()
					&& ModelChecks.clean(i, m.topic) && i.endNanos() < at && !this.state.disrupted(ModelState.ANY,
							i.engine(), i.startNanos() - ModelChecks.CLAIM_SLACK, at, m.topic)) {
				this.state.violation(m, op + " found the job waiting although " + this.state.describe(i)
						+ " had returned normally (no crash, pause or outage since)");
				return;
			}
		}
	}

	/**
	 * After an unanswered call or a contradiction the model no longer knows the job's
	 * state; a REPLACE with a due time in half an hour makes it known again. What was
	 * there before is then no longer required to end (it may have run, or not).
	 */
	void resync(JobModel m, String why) {
		this.state.note(m, "resync: " + why);
		if (m.current != null) {
			m.current.required = false;
		}
		Behavior behavior = new Behavior(Kind.OK, 0, nonce("r"));
		Due due = Due.in("resync", Duration.ofMinutes(30));
		long start = System.nanoTime();
		try {
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(100))
				.ignoreExceptionsInstanceOf(RedeqUnavailableException.class)
				.until(() -> {
					try {
						this.system.client().schedule(job(m, behavior, due, Duplicate.REPLACE));
						return true;
					}
					catch (DuplicateJobException ex) {
						return false;
					}
				});
		}
		catch (ConditionTimeoutException ex) {
			this.state.violation(m, "could not take the id over with REPLACE within 30 s (" + why + ")");
			return;
		}
		long end = System.nanoTime();
		for (ModelState.Incarnation unsure : m.uncertain) {
			unsure.close(End.REPLACED, end);
		}
		m.uncertain.clear();
		replace(m, behavior, due, start, end);
		this.state.note(m, "resync: REPLACE " + behavior + " due in 30 minutes -> accepted");
	}

	/** When a job is due: after a delay from the Redis clock's now, or at an instant. */
	record Due(String label, @Nullable Duration delay, @Nullable Instant at, Instant instant) {

		static Due in(String label, Duration delay) {
			return new Due(label, delay, null, Instant.now().plus(delay));
		}

		static Due at(String label, Instant at) {
			return new Due(label, null, at, at);
		}

		boolean isFar() {
			return Duration.between(Instant.now(), this.instant).compareTo(FAR.minusMinutes(1)) > 0;
		}

		@Override
		public String toString() {
			return this.label + ((this.delay != null) ? " in " + this.delay.toMillis() + "ms" : " at " + this.at);
		}

	}

}
