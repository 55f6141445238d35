package io.redeq.schedule;

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
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import io.redeq.CapacityExceededException;
import io.redeq.DuplicateJobException;
import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.PayloadTooLargeException;
import io.redeq.RedeqClient;
import io.redeq.RedeqException;
import io.redeq.RedeqOptions;
import io.redeq.codec.PayloadCodec;
import io.redeq.internal.JobEvents;
import io.redeq.internal.Validate;
import io.redeq.redis.KeySpace;
import io.redeq.redis.RedisJobStore;
import io.redeq.redis.Replication;
import io.redeq.redis.ScheduleOutcome;
import io.redeq.redis.ScheduleRequest;

/**
 * {@link RedeqClient} on the job store. Every input is checked before anything is sent,
 * so a call that fails validation writes nothing.
 */
public final class JobScheduler implements RedeqClient {

	/**
	 * Jobs of one bucket sent in one script call by {@link #scheduleAll}; keeps each call
	 * short.
	 */
	private static final int JOBS_PER_CALL = 200;

	private final RedisJobStore store;

	private final PayloadCodec codec;

	private final RedeqOptions options;

	private final WakeUps wakeUps;

	private final JobEvents events;

	private final Replication replication;

	public JobScheduler(RedisJobStore store, PayloadCodec codec, RedeqOptions options, WakeUps wakeUps,
			JobEvents events) {
		this.store = store;
		this.codec = codec;
		this.options = options;
		this.wakeUps = wakeUps;
		this.events = events;
		this.replication = new Replication(store.scripts(), store.keys(), options.waitReplicas(),
				options.waitTimeout());
	}

	@Override
	public String schedule(String topic, @Nullable Object payload, Duration delay) {
		return schedule(Job.builder(topic).payload(payload).delay(delay).build());
	}

	@Override
	public String scheduleAt(String topic, @Nullable Object payload, Instant dueAt) {
		return schedule(Job.builder(topic).payload(payload).dueAt(dueAt).build());
	}

	@Override
	public String schedule(Job job) {
		Prepared prepared = prepare(job);
		int bucket = this.store.keys().bucketOf(prepared.request.jobKey());
		List<ScheduleOutcome> outcomes = this.store.scripts()
			.await(this.store.schedule(bucket, this.options.capacityPerBucket(), List.of(prepared.request)),
					"schedule " + prepared.describe());
		String id = accept(prepared, bucket, outcomes.get(0));
		if (this.replication.enabled() && outcomes.get(0).written()) {
			this.replication.await(List.of(bucket), "Job " + prepared.describe());
		}
		return id;
	}

	@Override
	public List<String> scheduleAll(Collection<Job> jobs) {
		Objects.requireNonNull(jobs, "jobs must not be null");
		List<Prepared> prepared = new ArrayList<>(jobs.size());
		for (Job job : jobs) {
			prepared.add(prepare(job));
		}
		Map<Integer, List<Prepared>> byBucket = new LinkedHashMap<>();
		KeySpace keys = this.store.keys();
		for (Prepared p : prepared) {
			byBucket.computeIfAbsent(keys.bucketOf(p.request.jobKey()), (b) -> new ArrayList<>()).add(p);
		}
		record Call(int bucket, List<Prepared> jobs, CompletionStage<List<ScheduleOutcome>> reply) {
		}
		List<Call> calls = new ArrayList<>();
		for (Map.Entry<Integer, List<Prepared>> entry : byBucket.entrySet()) {
			List<Prepared> group = entry.getValue();
			for (int from = 0; from < group.size(); from += JOBS_PER_CALL) {
				List<Prepared> chunk = group.subList(from, Math.min(group.size(), from + JOBS_PER_CALL));
				calls.add(new Call(entry.getKey(), chunk, this.store.schedule(entry.getKey(),
						this.options.capacityPerBucket(), chunk.stream().map(Prepared::request).toList())));
			}
		}
		RedeqException firstFailure = null;
		Set<Integer> written = new LinkedHashSet<>();
		for (Call call : calls) {
			List<ScheduleOutcome> outcomes = this.store.scripts()
				.await(call.reply(), "schedule " + call.jobs().size() + " jobs");
			for (int i = 0; i < outcomes.size(); i++) {
				if (outcomes.get(i).written()) {
					written.add(call.bucket());
				}
				try {
					accept(call.jobs().get(i), call.bucket(), outcomes.get(i));
				}
				catch (RedeqException ex) {
					if (firstFailure == null) {
						firstFailure = ex;
					}
				}
			}
		}
		if (this.replication.enabled() && !written.isEmpty()) {
			this.replication.await(written, prepared.size() + " jobs");
		}
		if (firstFailure != null) {
			throw firstFailure;
		}
		return prepared.stream().map((p) -> p.id).toList();
	}

	private String accept(Prepared prepared, int bucket, ScheduleOutcome outcome) {
		switch (outcome.status()) {
			case "new", "replaced" -> {
				if (outcome.earliest()) {
					this.wakeUps.earlierJob(bucket, Long.parseLong(outcome.value()));
				}
				this.events.scheduled(prepared.topic);
				return prepared.id;
			}
			case "kept" -> {
				return prepared.id;
			}
			case "rejected" -> throw new DuplicateJobException(prepared.topic, prepared.id, "Job " + prepared.describe()
					+ " already exists (Duplicate.REJECT); cancel it first or schedule with Duplicate.REPLACE or KEEP");
			case "running" -> throw new DuplicateJobException(prepared.topic, prepared.id, "Job " + prepared.describe()
					+ " cannot be replaced: a handler is running it right now. Schedule it under another id, or again once it finished");
			case "full" -> throw new CapacityExceededException("Topic '" + prepared.topic
					+ "' is full: its bucket holds " + outcome.value()
					+ " pending jobs, the share of redeq.max-pending=" + this.options.maxPending() + " each of the "
					+ this.options.buckets() + " buckets allows (" + this.options.capacityPerBucket() + "). Job "
					+ prepared.describe() + " was not scheduled; consume faster or raise redeq.max-pending");
			default -> throw new RedeqException(
					"Unexpected reply '" + outcome.status() + "' scheduling " + prepared.describe());
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
		return new Prepared(topic, id,
				new ScheduleRequest(KeySpace.jobKey(topic, id), payload, absolute, millis, job.onDuplicate()));
	}

	private String writePayload(String topic, String id, @Nullable Object payload) {
		String json;
		try {
			json = this.codec.write(payload);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("Payload of job '" + id + "' in topic '" + topic + "' ("
					+ ((payload != null) ? payload.getClass().getName() : "null") + ") cannot be written as JSON: "
					+ ex.getMessage(), ex);
		}
		long limit = this.options.maxPayloadSize();
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

	@Override
	public boolean cancel(String topic, String id) {
		String jobKey = jobKey(topic, id);
		boolean cancelled = this.store.cancel(this.store.keys().bucketOf(jobKey), jobKey, JobIds.next());
		if (cancelled) {
			this.events.cancelled(topic);
		}
		return cancelled;
	}

	@Override
	public boolean reschedule(String topic, String id, Duration delay) {
		Validate.delay(String.valueOf(topic), delay);
		return reschedule(topic, id, false, delay.toMillis());
	}

	@Override
	public boolean reschedule(String topic, String id, Instant dueAt) {
		return reschedule(topic, id, true, Validate.dueAt(String.valueOf(topic), dueAt).toEpochMilli());
	}

	private boolean reschedule(String topic, String id, boolean absolute, long millis) {
		String jobKey = jobKey(topic, id);
		int bucket = this.store.keys().bucketOf(jobKey);
		Optional<ScheduleOutcome> outcome = this.store.reschedule(bucket, jobKey, absolute, millis);
		outcome.filter(ScheduleOutcome::earliest)
			.ifPresent((o) -> this.wakeUps.earlierJob(bucket, Long.parseLong(o.value())));
		return outcome.isPresent();
	}

	@Override
	public Optional<JobInfo> find(String topic, String id) {
		String jobKey = jobKey(topic, id);
		return this.store.find(this.store.keys().bucketOf(jobKey), jobKey).map((job) -> job.toInfo());
	}

	private static String jobKey(String topic, String id) {
		Validate.topic(topic);
		return KeySpace.jobKey(topic, Validate.id(topic, id));
	}

	private record Prepared(String topic, String id, ScheduleRequest request) {

		String describe() {
			return "'" + this.id + "' in topic '" + this.topic + "'";
		}

	}

}
