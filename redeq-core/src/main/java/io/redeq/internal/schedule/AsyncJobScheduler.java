package io.redeq.internal.schedule;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.AsyncRedeqClient;
import io.redeq.CapacityExceededException;
import io.redeq.DuplicateJobException;
import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.PayloadTooLargeException;
import io.redeq.RedeqException;
import io.redeq.RedeqOptions;
import io.redeq.internal.JobEvents;
import io.redeq.internal.JobIds;
import io.redeq.internal.LayoutFollower;
import io.redeq.internal.Validate;
import io.redeq.internal.WakeUps;
import io.redeq.internal.codec.PayloadCodec;
import io.redeq.internal.observation.ScheduleObservations;
import io.redeq.internal.redis.JobSettings;
import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.LayoutChangedException;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.Replication;
import io.redeq.internal.redis.ScheduleOutcome;
import io.redeq.internal.redis.ScheduleRequest;
import io.redeq.internal.redis.script.ScriptRunner;

/**
 * {@link AsyncRedeqClient} on the job store: the one code path of scheduling, which the
 * synchronous {@link JobScheduler} waits on. Every input is checked on the caller's
 * thread before anything is sent, so a call that fails validation throws and writes
 * nothing; what Redis answers completes the future, on Lettuce's I/O thread.
 *
 * <p>
 * One class because it is the single scheduling path: every method of
 * {@link AsyncRedeqClient} checks its input, groups its calls per bucket and reads the
 * reply the same way, and kept together that path stays one.
 */
public final class AsyncJobScheduler implements AsyncRedeqClient {

	/**
	 * Jobs of one bucket sent in one script call by {@link #scheduleAll}, and by the
	 * group commit of single calls; keeps each call short.
	 */
	private static final int JOBS_PER_CALL = 200;

	/**
	 * Script calls of single schedules in flight per bucket before later calls wait for
	 * the next one. With one, the benchmark's W1c (16 threads over 16 buckets) ran slower
	 * than without group commit: few callers met in a bucket, and those that did waited a
	 * whole round trip for a call that carried little more than their own job. With two
	 * they rarely wait, while many calls in flight for a bucket (the asynchronous
	 * client's) still share calls.
	 */
	private static final int CALLS_IN_FLIGHT_PER_BUCKET = 2;

	/** Ids one {@link #cancelAll} call takes at most. */
	public static final int MAX_CANCEL_ALL = 10_000;

	private static final Logger logger = LoggerFactory.getLogger(AsyncJobScheduler.class);

	/**
	 * The bucket layout calls go to; replaced when the engine follows a change of the
	 * bucket count. Each call reads it once, so that its bucket and its keys come from
	 * the same layout.
	 */
	private volatile Route route;

	/** Where a call refused by a changed layout waits for the engine; null: nowhere. */
	private volatile @Nullable LayoutFollower follower;

	/**
	 * The layout a change under way moves to, where new jobs go meanwhile (see
	 * {@link #sendBesideChange}); null before the first change.
	 */
	private volatile @Nullable Route changeTarget;

	private final PayloadCodec codec;

	private final JobEvents events;

	private final ScheduleObservations observations;

	/** Told of each job a schedule call sent (see {@link JournalHooks#onAccepted}). */
	private volatile @Nullable Consumer<AcceptedJob> acceptedListener;

	/** Names the version of each job a call sends (see {@link JournalHooks#versions}). */
	private volatile @Nullable Function<Job, String> versions;

	/**
	 * The trace context a job was given before it was sent (see
	 * {@link JournalHooks#traceContexts}).
	 */
	private volatile @Nullable Function<Job, @Nullable String> traceContexts;

	public AsyncJobScheduler(RedisJobStore store, PayloadCodec codec, RedeqOptions options, WakeUps wakeUps,
			JobEvents events, ScheduleObservations observations) {
		this.codec = codec;
		this.events = events;
		this.observations = observations;
		this.route = new Route(store, options, wakeUps);
	}

	/**
	 * Sends every later call to another bucket layout: what the engine does when it
	 * follows a change of the bucket count. Calls already sent finish on the old one; a
	 * call the old one refuses is sent again on the new one.
	 * @param store the job store of the new layout
	 * @param options the engine's options with the new bucket count
	 * @param wakeUps where the new layout's earlier jobs are reported
	 */
	public void relayout(RedisJobStore store, RedeqOptions options, WakeUps wakeUps) {
		this.route = new Route(store, options, wakeUps);
	}

	/**
	 * Where calls refused by a changed bucket layout wait for the engine to follow it,
	 * before they are sent again.
	 * @param follower the engine's follower
	 */
	public void followLayoutWith(LayoutFollower follower) {
		this.follower = follower;
	}

	/**
	 * {@code attempt} as it completes, unless a changed bucket layout refused it: then,
	 * once the engine followed the change, what {@code again} sends on the new layout.
	 */
	private <T> CompletableFuture<T> following(Route sentOn, CompletableFuture<T> attempt,
			Supplier<CompletableFuture<T>> again) {
		LayoutFollower follower = this.follower;
		if (follower == null) {
			return unwrapped(attempt);
		}
		return unwrapped(attempt.exceptionallyCompose((ex) -> (causeOf(ex) instanceof LayoutChangedException)
				? follower.followed(sentOn.options.buckets()).thenCompose((followed) -> again.get())
				: CompletableFuture.failedFuture(causeOf(ex))));
	}

	/**
	 * How long the slowest operation may take before its future completes: a script and,
	 * with replica acknowledgement on, a WAIT with its own timeout.
	 */
	Duration longestWait() {
		// A single schedule may wait for the call in flight for its bucket, then its own.
		Route route = this.route;
		Duration command = route.store.scripts().timeout().multipliedBy(2);
		return route.replication.enabled() ? command.multipliedBy(2).plus(route.options.waitTimeout()) : command;
	}

	/**
	 * The hooks the starter's journal uses; internal.
	 * @return the hooks of this scheduler
	 */
	public JournalHooks journalHooks() {
		return new JournalHooks(this);
	}

	void acceptedListener(@Nullable Consumer<AcceptedJob> listener) {
		this.acceptedListener = listener;
	}

	void versions(@Nullable Function<Job, String> versions) {
		this.versions = versions;
	}

	void traceContexts(@Nullable Function<Job, @Nullable String> traceContexts) {
		this.traceContexts = traceContexts;
	}

	/**
	 * Starts and stops the observation of scheduling a job now, for a job that is sent
	 * later (see {@link JournalHooks#traceContextHere}).
	 */
	@Nullable String traceContextHere(String topic, String id) {
		ScheduleObservations.Started observed = this.observations.start(topic, id);
		observed.stop(null);
		return observed.traceContext();
	}

	@Override
	public CompletableFuture<String> schedule(String topic, @Nullable Object payload, Duration delay) {
		return schedule(Job.builder(topic).payload(payload).delay(delay).build());
	}

	@Override
	public CompletableFuture<String> scheduleAt(String topic, @Nullable Object payload, Instant dueAt) {
		return schedule(Job.builder(topic).payload(payload).dueAt(dueAt).build());
	}

	@Override
	public CompletableFuture<String> schedule(Job job) {
		Prepared prepared = prepare(job);
		if (prepared.request.traceContext() != null) {
			// Observed when it was first scheduled (see JournalHooks.traceContexts).
			return send(prepared);
		}
		ScheduleObservations.Started observed = this.observations.start(prepared.topic, prepared.id);
		CompletableFuture<String> result;
		try {
			result = send(prepared.withTrace(observed.traceContext()));
		}
		catch (RuntimeException ex) {
			observed.stop(ex);
			throw ex;
		}
		if (!this.observations.enabled()) {
			return result;
		}
		// The caller's future completes once the observation stopped: one that looks
		// right after join() finds it stopped.
		return unwrapped(result.whenComplete((id, ex) -> observed.stop(ex)));
	}

	/**
	 * Schedules a job restored from elsewhere, with the attempts it already used (see
	 * {@link JobRestorer}); not observed as a schedule call, as it repeats one.
	 * @param job the job
	 * @param attemptsUsed attempts used before, 0 for none
	 * @return the job's id, once Redis has it (or kept the copy it had)
	 */
	public CompletableFuture<String> restore(Job job, int attemptsUsed) {
		return restore(job, attemptsUsed, null);
	}

	/**
	 * Schedules a job restored from elsewhere, with the attempts it already used and the
	 * trace context it was first scheduled with (see {@link JobRestorer}).
	 * @param job the job
	 * @param attemptsUsed attempts used before, 0 for none
	 * @param traceContext the stored trace context, or {@code null}
	 * @return the job's id, once Redis has it (or kept the copy it had)
	 */
	public CompletableFuture<String> restore(Job job, int attemptsUsed, @Nullable String traceContext) {
		if (attemptsUsed < 0 || attemptsUsed > ScheduleRequest.MAX_ATTEMPTS_USED) {
			throw new IllegalArgumentException("Attempts already used must be between 0 and "
					+ ScheduleRequest.MAX_ATTEMPTS_USED + ", was " + attemptsUsed);
		}
		Prepared prepared = prepare(job);
		ScheduleRequest request = prepared.request.withTrace(traceContext).withAttemptsUsed(attemptsUsed);
		return send(new Prepared(prepared.topic, prepared.id, request, false));
	}

	/**
	 * Sends one job with its bucket's next script call (see {@link GroupCommit}); the
	 * future fails with redeq's exception itself.
	 */
	private CompletableFuture<String> send(Prepared prepared) {
		Route route = this.route;
		int bucket = route.keys().bucketOf(prepared.request.jobKey());
		long mark = route.replication.mark(List.of(bucket));
		CompletableFuture<String> accepted = route.groups.submit(bucket, prepared);
		if (route.replication.enabled()) {
			// A job kept as it was is waited for too: an earlier schedule of it may have
			// been refused because its WAIT failed, and this one must not acknowledge it
			// unchecked.
			accepted = unwrapped(accepted
				.thenCompose((id) -> route.replication.awaitAsync(List.of(bucket), "Job " + prepared.describe(), mark)
					.thenApply((ignored) -> id)));
		}
		return unwrapped(accepted.exceptionallyCompose(
				(ex) -> refusedByLayout(ex) ? sendBesideChange(route, List.of(prepared)).thenApply((ids) -> ids.get(0))
						: CompletableFuture.failedFuture(causeOf(ex))));
	}

	private boolean refusedByLayout(Throwable ex) {
		return this.follower != null && causeOf(ex) instanceof LayoutChangedException;
	}

	/**
	 * Sends jobs that a changed bucket layout refused. While a change of the count is
	 * under way, a job its old bucket does not hold goes straight to its bucket of the
	 * new layout: nothing can put it in the old bucket any more (the change froze it), so
	 * the change cannot bring an older copy over it, and its id's duplicate rule holds in
	 * the new bucket, which holds any copy already moved. A job the old bucket holds (it
	 * waits to move, or runs), or one the new layout refuses too, waits until the engine
	 * follows the change, and is sent on the new layout then.
	 */
	private CompletableFuture<List<String>> sendBesideChange(Route refused, List<Prepared> jobs) {
		LayoutFollower follower = this.follower;
		int buckets = refused.options.buckets();
		Function<List<Prepared>, CompletableFuture<List<String>>> afterTheChange = (some) -> follower.followed(buckets)
			.thenCompose((followed) -> sendAll(some));
		return follower.changingTo(buckets).thenCompose((target) -> {
			if (target == 0 || target == buckets) {
				return afterTheChange.apply(jobs);
			}
			return noneHeldIn(refused, jobs).thenCompose((absent) -> absent
					? sendAllOn(routeTo(target, refused), jobs, afterTheChange) : afterTheChange.apply(jobs));
		});
	}

	/** Whether none of the jobs is held in its bucket of a layout. */
	private static CompletableFuture<Boolean> noneHeldIn(Route route, List<Prepared> jobs) {
		List<CompletableFuture<Boolean>> held = new ArrayList<>(jobs.size());
		for (Prepared job : jobs) {
			String jobKey = job.request.jobKey();
			held.add(route.store.holds(route.keys().bucketOf(jobKey), jobKey));
		}
		return CompletableFuture.allOf(held.toArray(CompletableFuture[]::new))
			.thenApply((ignored) -> held.stream().noneMatch(CompletableFuture::join));
	}

	/**
	 * The route to the layout a change moves to: its buckets have no migrator of this
	 * engine yet (they get one when the engine follows the change, and look at every
	 * bucket then), so earlier jobs are reported to nobody.
	 */
	private Route routeTo(int buckets, Route from) {
		Route target = this.changeTarget;
		if (target == null || target.options.buckets() != buckets) {
			RedeqOptions options = from.options.mutate().buckets(buckets).build();
			target = new Route(new RedisJobStore(new KeySpace(options.prefix(), buckets), from.store.scripts(),
					options.proxyMode()), options, (bucket, dueAt) -> {
					});
			this.changeTarget = target;
		}
		return target;
	}

	@Override
	public CompletableFuture<List<String>> scheduleAll(Collection<Job> jobs) {
		Objects.requireNonNull(jobs, "jobs must not be null");
		List<Prepared> prepared = new ArrayList<>(jobs.size());
		for (Job job : jobs) {
			prepared.add(prepare(job));
		}
		List<ScheduleObservations.Started> observed = new ArrayList<>();
		if (this.observations.enabled()) {
			for (int i = 0; i < prepared.size(); i++) {
				Prepared p = prepared.get(i);
				if (p.request.traceContext() != null) {
					continue;
				}
				ScheduleObservations.Started started = this.observations.start(p.topic, p.id);
				observed.add(started);
				prepared.set(i, p.withTrace(started.traceContext()));
			}
		}
		CompletableFuture<List<String>> result = sendAll(prepared);
		if (!observed.isEmpty()) {
			// One observation per job, as a schedule call has; all end when the batch is
			// answered, before the caller's future completes.
			result = result.whenComplete((ids, ex) -> observed.forEach((started) -> started.stop(ex)));
		}
		return unwrapped(result);
	}

	/**
	 * Sends prepared jobs in one script call per bucket (and per {@link #JOBS_PER_CALL}
	 * of its jobs), all before the first reply is awaited; the future completes with
	 * their ids once every call answered, or fails with the first failure in job order. A
	 * call a changed bucket layout refused is sent again, with only its jobs, once the
	 * engine followed the change.
	 */
	private CompletableFuture<List<String>> sendAll(List<Prepared> prepared) {
		Route route = this.route;
		return sendAllOn(route, prepared, (refused) -> sendBesideChange(route, refused));
	}

	/**
	 * {@link #sendAll} on one layout, with what sends the jobs of a call that layout
	 * refused.
	 */
	private CompletableFuture<List<String>> sendAllOn(Route route, List<Prepared> prepared,
			Function<List<Prepared>, CompletableFuture<List<String>>> onRefused) {
		Map<Integer, List<Prepared>> byBucket = new LinkedHashMap<>();
		KeySpace keys = route.keys();
		for (Prepared p : prepared) {
			byBucket.computeIfAbsent(keys.bucketOf(p.request.jobKey()), (b) -> new ArrayList<>()).add(p);
		}
		long mark = route.replication.mark(byBucket.keySet());
		List<CompletableFuture<Call>> calls = new ArrayList<>();
		for (Map.Entry<Integer, List<Prepared>> entry : byBucket.entrySet()) {
			List<Prepared> group = entry.getValue();
			for (int from = 0; from < group.size(); from += JOBS_PER_CALL) {
				List<Prepared> chunk = group.subList(from, Math.min(group.size(), from + JOBS_PER_CALL));
				int bucket = entry.getKey();
				CompletableFuture<Call> call = ScriptRunner
					.translated(
							route.store.schedule(bucket, route.options.capacityPerBucket(),
									chunk.stream().map(Prepared::request).toList()),
							"schedule " + chunk.size() + " jobs")
					.thenApply((outcomes) -> accept(route, bucket, chunk, outcomes));
				// Sent again on the new layout, the chunk answers for itself there (its
				// buckets, its replicas): it is no bucket of this one.
				calls.add(call.exceptionallyCompose(
						(ex) -> refusedByLayout(ex) ? onRefused.apply(chunk).thenApply((ids) -> new Call(-1, null))
								: CompletableFuture.failedFuture(causeOf(ex))));
			}
		}
		return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).handle((ignored, ex) -> {
			// Each call answered (or failed alone): the first failure in job order wins,
			// as the synchronous client throws it.
			RedeqException firstFailure = null;
			Set<Integer> answered = new LinkedHashSet<>();
			for (CompletableFuture<Call> call : calls) {
				if (call.isCompletedExceptionally()) {
					firstFailure = (firstFailure != null) ? firstFailure : failureOf(call);
					continue;
				}
				Call done = call.join();
				if (done.bucket() >= 0) {
					answered.add(done.bucket());
				}
				if (firstFailure == null) {
					firstFailure = done.firstFailure();
				}
			}
			return new Batch(answered, firstFailure);
		}).thenCompose((batch) -> {
			// Kept jobs are waited for as well (see send).
			CompletableFuture<Void> replicated = batch.answered().isEmpty() ? CompletableFuture.completedFuture(null)
					: route.replication.awaitAsync(batch.answered(), prepared.size() + " jobs", mark);
			return replicated.thenApply((ignored) -> {
				if (batch.firstFailure() != null) {
					throw batch.firstFailure();
				}
				return prepared.stream().map((p) -> p.id).toList();
			});
		});
	}

	private Call accept(Route route, int bucket, List<Prepared> jobs, List<ScheduleOutcome> outcomes) {
		RedeqException firstFailure = null;
		for (int i = 0; i < outcomes.size(); i++) {
			try {
				accept(route, jobs.get(i), bucket, outcomes.get(i));
			}
			catch (RedeqException ex) {
				firstFailure = (firstFailure != null) ? firstFailure : ex;
			}
		}
		return new Call(bucket, firstFailure);
	}

	/** The failure of a call that completed exceptionally. */
	private static RedeqException failureOf(CompletableFuture<?> call) {
		Throwable cause = causeOf(call.handle((value, ex) -> ex).join());
		return (cause instanceof RedeqException redeq) ? redeq
				: new RedeqException("Unexpected failure scheduling jobs: " + cause, cause);
	}

	private static Throwable causeOf(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	private String accept(Route route, Prepared prepared, int bucket, ScheduleOutcome outcome) {
		switch (outcome.status()) {
			case "new", "replaced" -> {
				if (outcome.earliest()) {
					route.wakeUps.earlierJob(bucket, Long.parseLong(outcome.value()));
				}
				this.events.scheduled(prepared.topic);
				report(prepared, outcome.value(), outcome.redisTime(), false);
				return prepared.id;
			}
			case "kept" -> {
				report(prepared, null, outcome.redisTime(), true);
				return prepared.id;
			}
			case "rejected" -> throw new DuplicateJobException(prepared.topic, prepared.id, "Job " + prepared.describe()
					+ " already exists (Duplicate.REJECT); cancel it first or schedule with Duplicate.REPLACE or KEEP");
			case "running" -> throw new DuplicateJobException(prepared.topic, prepared.id, "Job " + prepared.describe()
					+ " cannot be replaced: a handler is running it right now. Schedule it under another id, or again once it finished");
			case "full" -> throw new CapacityExceededException("Topic '" + prepared.topic
					+ "' is full: its bucket holds " + outcome.value()
					+ " pending jobs, the share of redeq.max-pending=" + route.options.maxPending() + " each of the "
					+ route.options.buckets() + " buckets allows (" + route.options.capacityPerBucket() + "). Job "
					+ prepared.describe() + " was not scheduled; consume faster or raise redeq.max-pending");
			default -> throw new RedeqException(
					"Unexpected reply '" + outcome.status() + "' scheduling " + prepared.describe());
		}
	}

	/**
	 * Tells the accepted-job listener, if any, what Redis now holds (or kept). Never
	 * fails the schedule: the job is in Redis whatever the listener does. The due time
	 * comes as Redis answered it, and is read only when a listener hears of it, so a
	 * schedule without the journal does no work for it.
	 */
	private void report(Prepared prepared, @Nullable String dueAt, long redisTime, boolean kept) {
		Consumer<AcceptedJob> listener = this.acceptedListener;
		if (listener == null || !prepared.reported) {
			return;
		}
		ScheduleRequest request = prepared.request;
		JobSettings settings = request.settings();
		try {
			listener.accept(new AcceptedJob(prepared.topic, prepared.id, request.payload(),
					(dueAt != null) ? Long.parseLong(dueAt) : -1, request.onDuplicate(), settings.timeoutMillis(),
					settings.maxAttempts(), settings.priority(), request.traceContext(), settings.version(), redisTime,
					kept));
		}
		catch (RuntimeException ex) {
			logger.warn("Listener of accepted job {} failed: {}", prepared.describe(), ex.toString());
		}
	}

	private Prepared prepare(Job job) {
		Objects.requireNonNull(job, "job must not be null");
		String topic = Validate.topic(job.topic());
		String id = (job.id() != null) ? Validate.id(topic, job.id()) : JobIds.next();
		String payload = writePayload(topic, id, job.payload());
		boolean absolute = job.dueAt() != null;
		long millis = absolute ? Validate.dueAt(topic, job.dueAt()).toEpochMilli()
				: Validate.delay(topic, (job.delay() != null) ? job.delay() : Duration.ZERO).toMillis();
		JobSettings settings = JobSettings.of(job.timeout(), job.maxAttempts(), job.priority());
		Function<Job, String> versions = this.versions;
		if (versions != null) {
			settings = settings.withVersion(versions.apply(job));
		}
		Function<Job, @Nullable String> traceContexts = this.traceContexts;
		String traceContext = (traceContexts != null) ? traceContexts.apply(job) : null;
		return new Prepared(topic, id, new ScheduleRequest(KeySpace.jobKey(topic, id), payload, absolute, millis,
				job.onDuplicate(), settings, traceContext), true);
	}

	/** The payload as JSON, refused when it cannot be written or is too large. */
	String writePayload(String topic, String id, @Nullable Object payload) {
		String json = encodePayload(topic, id, payload);
		long limit = this.route.options.maxPayloadSize();
		// A UTF-8 character takes at most 3 bytes per UTF-16 unit: only count bytes when
		// it could matter.
		if ((long) json.length() * 3 > limit) {
			int size = json.getBytes(StandardCharsets.UTF_8).length;
			if (size > limit) {
				throw new PayloadTooLargeException("Payload of job '" + id + "' in topic '" + topic + "' is " + size
						+ " bytes as JSON; redeq.max-payload-size allows " + limit
						+ ". Store large data elsewhere and schedule its key");
			}
		}
		return json;
	}

	/** The payload as the codec writes it, refused when it cannot be written. */
	String encodePayload(String topic, String id, @Nullable Object payload) {
		try {
			return this.codec.write(payload);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("Payload of job '" + id + "' in topic '" + topic + "' ("
					+ ((payload != null) ? payload.getClass().getName() : "null") + ") cannot be written as JSON: "
					+ ex.getMessage(), ex);
		}
	}

	@Override
	public CompletableFuture<Boolean> cancel(String topic, String id) {
		String jobKey = jobKey(topic, id);
		return cancelJob(topic, jobKey);
	}

	private CompletableFuture<Boolean> cancelJob(String topic, String jobKey) {
		Route route = this.route;
		CompletableFuture<Boolean> cancelled = ScriptRunner
			.translated(route.store.cancel(route.keys().bucketOf(jobKey), jobKey, JobIds.next()), "cancel " + jobKey);
		return unwrapped(following(route, cancelled, () -> cancelJob(topic, jobKey)).thenApply((done) -> {
			if (done) {
				this.events.cancelled(topic);
			}
			return done;
		}));
	}

	/**
	 * Cancels the waiting jobs (DELAYED or READY) among {@code ids} of one topic: one
	 * script per bucket (and per {@link RedisJobStore#MAX_CANCEL_PER_CALL} of its jobs),
	 * all sent before the first reply is awaited. Validation throws here, before anything
	 * is sent. Every bucket's reply is awaited: the future completes with the ids
	 * cancelled and, if a bucket's script failed, the first failure.
	 * @param topic the topic
	 * @param ids the ids, at most {@link #MAX_CANCEL_ALL}; repeated ones count once
	 * @return what was cancelled
	 */
	public CompletableFuture<CancelledJobs> cancelAll(String topic, Collection<String> ids) {
		Validate.topic(topic);
		Objects.requireNonNull(ids, () -> "ids to cancel in topic '" + topic + "' must not be null");
		if (ids.size() > MAX_CANCEL_ALL) {
			throw new IllegalArgumentException("cancelAll in topic '" + topic + "' takes at most " + MAX_CANCEL_ALL
					+ " ids per call, but got " + ids.size() + "; split the list, or purge the topic's DELAYED "
					+ "or READY jobs with RedeqAdmin.purge");
		}
		// A repeated id would be counted twice by its bucket's script.
		List<String> jobKeys = new ArrayList<>();
		for (String id : new LinkedHashSet<>(ids)) {
			jobKeys.add(KeySpace.jobKey(topic, Validate.id(topic, id)));
		}
		List<CompletableFuture<List<String>>> replies = cancelAll(topic, jobKeys);
		int idStart = topic.length() + 1;
		return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).handle((ignored, ex) -> {
			List<String> cancelled = new ArrayList<>();
			RuntimeException failure = null;
			for (CompletableFuture<List<String>> reply : replies) {
				try {
					reply.join().forEach((jobKey) -> cancelled.add(jobKey.substring(idStart)));
				}
				catch (CompletionException | CancellationException failed) {
					RuntimeException cause = asRuntime(causeOf(failed));
					if (failure == null) {
						failure = cause;
					}
					else if (failure != cause) {
						failure.addSuppressed(cause);
					}
				}
			}
			cancelled.forEach((id) -> this.events.cancelled(topic));
			return new CancelledJobs(List.copyOf(cancelled), failure);
		});
	}

	/**
	 * One script call per bucket (and per {@link RedisJobStore#MAX_CANCEL_PER_CALL} of
	 * its jobs), all sent at once; a call a changed bucket layout refused is sent again,
	 * with only its jobs, once the engine followed the change.
	 */
	private List<CompletableFuture<List<String>>> cancelAll(String topic, List<String> jobKeys) {
		Route route = this.route;
		Map<Integer, List<String>> byBucket = new LinkedHashMap<>();
		for (String jobKey : jobKeys) {
			byBucket.computeIfAbsent(route.keys().bucketOf(jobKey), (b) -> new ArrayList<>()).add(jobKey);
		}
		List<CompletableFuture<List<String>>> replies = new ArrayList<>();
		byBucket.forEach((bucket, inBucket) -> {
			for (int from = 0; from < inBucket.size(); from += RedisJobStore.MAX_CANCEL_PER_CALL) {
				List<String> part = inBucket.subList(from,
						Math.min(inBucket.size(), from + RedisJobStore.MAX_CANCEL_PER_CALL));
				CompletableFuture<List<String>> reply = ScriptRunner.translated(
						route.store.cancelAll(bucket, topic, part, JobIds.next()),
						"cancel " + part.size() + " jobs of topic " + topic);
				replies.add(following(route, reply, () -> allCancelled(cancelAll(topic, part))));
			}
		});
		return replies;
	}

	/** The job keys every reply cancelled, or the first failure. */
	private static CompletableFuture<List<String>> allCancelled(List<CompletableFuture<List<String>>> replies) {
		return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).thenApply((ignored) -> {
			List<String> cancelled = new ArrayList<>();
			replies.forEach((reply) -> cancelled.addAll(reply.join()));
			return cancelled;
		});
	}

	private static RuntimeException asRuntime(Throwable ex) {
		return (ex instanceof RuntimeException runtime) ? runtime
				: new RedeqException("Bulk cancel failed: " + ex.getMessage(), ex);
	}

	@Override
	public CompletableFuture<Boolean> reschedule(String topic, String id, Duration delay) {
		Validate.delay(String.valueOf(topic), delay);
		return reschedule(topic, id, false, delay.toMillis());
	}

	@Override
	public CompletableFuture<Boolean> reschedule(String topic, String id, Instant dueAt) {
		return reschedule(topic, id, true, Validate.dueAt(String.valueOf(topic), dueAt).toEpochMilli());
	}

	private CompletableFuture<Boolean> reschedule(String topic, String id, boolean absolute, long millis) {
		return reschedule(jobKey(topic, id), absolute, millis);
	}

	private CompletableFuture<Boolean> reschedule(String jobKey, boolean absolute, long millis) {
		Route route = this.route;
		int bucket = route.keys().bucketOf(jobKey);
		CompletableFuture<Boolean> moved = ScriptRunner
			.translated(route.store.reschedule(bucket, jobKey, absolute, millis), "reschedule " + jobKey)
			.thenApply((outcome) -> {
				outcome.filter(ScheduleOutcome::earliest)
					.ifPresent((o) -> route.wakeUps.earlierJob(bucket, Long.parseLong(o.value())));
				return outcome.isPresent();
			});
		return following(route, moved, () -> reschedule(jobKey, absolute, millis));
	}

	@Override
	public CompletableFuture<Optional<JobInfo>> find(String topic, String id) {
		return find(jobKey(topic, id));
	}

	private CompletableFuture<Optional<JobInfo>> find(String jobKey) {
		Route route = this.route;
		CompletableFuture<Optional<JobInfo>> found = ScriptRunner
			.translated(route.store.find(route.keys().bucketOf(jobKey), jobKey), "find " + jobKey)
			.thenApply((job) -> job.map((stored) -> stored.toInfo()));
		return following(route, found, () -> find(jobKey));
	}

	private static String jobKey(String topic, String id) {
		Validate.topic(topic);
		return KeySpace.jobKey(topic, Validate.id(topic, id));
	}

	/**
	 * A future that fails with the exception itself, not a {@link CompletionException}
	 * around it, so that {@code whenComplete} and {@code exceptionally} see a
	 * {@link DuplicateJobException} as such.
	 */
	private static <T> CompletableFuture<T> unwrapped(CompletableFuture<T> stage) {
		CompletableFuture<T> result = new CompletableFuture<>();
		stage.whenComplete((value, ex) -> {
			if (ex == null) {
				result.complete(value);
			}
			else {
				result.completeExceptionally(causeOf(ex));
			}
		});
		return result;
	}

	/**
	 * One job ready to send.
	 *
	 * @param reported whether the accepted-job listener hears of it: a schedule call's
	 * job, not a restored one
	 */
	private record Prepared(String topic, String id, ScheduleRequest request, boolean reported) {

		String describe() {
			return "'" + this.id + "' in topic '" + this.topic + "'";
		}

		Prepared withTrace(@Nullable String traceContext) {
			return (traceContext != null)
					? new Prepared(this.topic, this.id, this.request.withTrace(traceContext), this.reported) : this;
		}

	}

	/**
	 * What scheduling needs of one bucket layout: its store, the options with its bucket
	 * count, where its earlier jobs are reported, its replica waits, and the group commit
	 * of its buckets' single calls.
	 */
	private final class Route {

		private final RedisJobStore store;

		private final RedeqOptions options;

		private final WakeUps wakeUps;

		private final Replication replication;

		/**
		 * Single schedule calls of one bucket made while its calls in flight are at the
		 * limit go together in its next call.
		 */
		private final GroupCommit<Prepared, ScheduleOutcome, String> groups;

		Route(RedisJobStore store, RedeqOptions options, WakeUps wakeUps) {
			this.store = store;
			this.options = options;
			this.wakeUps = wakeUps;
			this.replication = new Replication(store.scripts(), store.keys(), options.waitReplicas(),
					options.waitTimeout());
			this.groups = new GroupCommit<>(JOBS_PER_CALL, CALLS_IN_FLIGHT_PER_BUCKET, this::sendGroup,
					new GroupCommit.Finisher<>() {

						@Override
						public String finish(int bucket, Prepared prepared, ScheduleOutcome outcome) {
							return accept(Route.this, prepared, bucket, outcome);
						}

						@Override
						public Throwable failure(Prepared prepared, Throwable failure) {
							return ScriptRunner.translate(failure, "schedule " + prepared.describe());
						}

					});
		}

		KeySpace keys() {
			return this.store.keys();
		}

		/** One script call for single schedule calls of one bucket. */
		private CompletableFuture<List<ScheduleOutcome>> sendGroup(int bucket, List<Prepared> jobs) {
			List<ScheduleRequest> requests = new ArrayList<>(jobs.size());
			for (Prepared job : jobs) {
				requests.add(job.request);
			}
			return this.store.schedule(bucket, this.options.capacityPerBucket(), requests).toCompletableFuture();
		}

	}

	private record Call(int bucket, @Nullable RedeqException firstFailure) {
	}

	private record Batch(Set<Integer> answered, @Nullable RedeqException firstFailure) {
	}

}
