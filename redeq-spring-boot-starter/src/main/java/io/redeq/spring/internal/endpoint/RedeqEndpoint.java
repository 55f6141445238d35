package io.redeq.spring.internal.endpoint;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import io.redeq.DeadJob;
import io.redeq.JobState;
import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqOptions;
import io.redeq.RedeqSnapshot;
import io.redeq.SubscriptionOptions;
import io.redeq.TopicStats;
import io.redeq.spring.internal.listener.ListenerMethod;
import io.redeq.spring.internal.listener.RedeqListenerEndpointRegistry;

/**
 * The {@code redeq} actuator endpoint, in the manner of Boot's {@code QuartzEndpoint}.
 * <ul>
 * <li>{@code GET /actuator/redeq}: topics with their counts, this instance's listeners,
 * bucket ownership, migration lag and instance id;</li>
 * <li>{@code GET /actuator/redeq/{topic}?offset=0&limit=20}: a page of the topic's dead
 * jobs;</li>
 * <li>{@code POST /actuator/redeq/{topic}} with {@code {"action":"requeue"}} requeues
 * every dead job of the topic, with {@code {"action":"purge"}} deletes them, with
 * {@code {"action":"purge-delayed"}} or {@code {"action":"purge-ready"}} cancels every
 * DELAYED or READY job of the topic ({@link RedeqAdmin#purge}), with
 * {@code {"action":"pause"}} or {@code {"action":"resume"}} pauses or resumes the topic
 * on every instance;</li>
 * <li>{@code POST /actuator/redeq/{topic}/{id}} with {@code {"action":"requeue"}}
 * requeues one dead job, with {@code {"action":"promote"}} makes a DELAYED job due now;
 * with {@code {"action":"cancel-recurring"}} removes the recurring job of that topic and
 * id (the overview lists them under {@code recurring}).</li>
 * </ul>
 * Writes name their action in the body rather than relying on the verb alone, so that a
 * stray POST cannot requeue or purge a whole topic. The overview takes a fresh snapshot
 * (one read per bucket, the cost of one background refresh): an operator wants current
 * counts, and the endpoint is not scraped.
 *
 * @since 0.1.0
 */
@Endpoint(id = "redeq")
public class RedeqEndpoint {

	static final int DEFAULT_LIMIT = 20;

	private static final String TOPIC_ACTIONS = "\"requeue\", \"purge\", \"purge-delayed\", \"purge-ready\", "
			+ "\"pause\" or \"resume\"";

	private final Redeq redeq;

	private final RedeqAdmin admin;

	private final @Nullable RedeqListenerEndpointRegistry listeners;

	public RedeqEndpoint(Redeq redeq, @Nullable RedeqListenerEndpointRegistry listeners) {
		this(redeq, redeq.admin(), listeners);
	}

	/**
	 * An endpoint whose operations go through the application's admin (with the journal
	 * on, the journaling one), so that what an operator changes is recorded.
	 * @param redeq the engine, for its snapshot
	 * @param admin the admin the operations use
	 * @param listeners the listener registry, or null
	 */
	public RedeqEndpoint(Redeq redeq, RedeqAdmin admin, @Nullable RedeqListenerEndpointRegistry listeners) {
		this.redeq = redeq;
		this.admin = admin;
		this.listeners = listeners;
	}

	@ReadOperation
	public RedeqDescriptor redeq() {
		RedeqSnapshot snapshot = this.redeq.refreshSnapshot();
		Map<String, TopicDescriptor> topics = new LinkedHashMap<>();
		Set<String> names = new TreeSet<>(snapshot.topics().keySet());
		if (snapshot.redisReachable()) {
			try {
				names.addAll(this.admin.topics());
			}
			catch (RuntimeException ex) {
				// The snapshot's topics are enough; it already says
				// whether Redis answers.
			}
		}
		for (String topic : names) {
			TopicStats stats = snapshot.topics().getOrDefault(topic, new TopicStats(topic, 0, 0, 0, 0));
			Long wait = (snapshot.oldestReadyWait().get(topic) != null)
					? snapshot.oldestReadyWait().get(topic).toMillis() : null;
			topics.put(topic, new TopicDescriptor(stats.delayed(), stats.ready(), stats.inFlight(), stats.dead(), wait,
					snapshot.pausedTopics().contains(topic)));
		}
		return new RedeqDescriptor(this.redeq.instanceId(), this.redeq.options().prefix(), snapshot.redisReachable(),
				snapshot.error(), snapshot.takenAt().toString(), snapshot.migrationLag().toMillis(),
				new BucketsDescriptor(this.redeq.options().buckets(), this.redeq.options().migratorEnabled(),
						snapshot.ownedBuckets()),
				topics, listeners(snapshot), recurring(snapshot.redisReachable()));
	}

	private List<RecurringDescriptor> recurring(boolean redisReachable) {
		if (!redisReachable) {
			return List.of();
		}
		try {
			return this.admin.recurring()
				.stream()
				.map((job) -> new RecurringDescriptor(job.topic(), job.id(), job.cron(),
						(job.every() != null) ? job.every().toString() : null, job.zone().getId(), job.missed().name(),
						job.payload(), (job.nextTick() != null) ? job.nextTick().toString() : null))
				.toList();
		}
		catch (RuntimeException ex) {
			return List.of(); // the snapshot already says whether Redis answers
		}
	}

	private List<ListenerDescriptor> listeners(RedeqSnapshot snapshot) {
		List<ListenerDescriptor> result = new ArrayList<>();
		RedeqOptions defaults = this.redeq.options();
		Set<String> described = new TreeSet<>();
		if (this.listeners != null) {
			for (ListenerMethod listener : this.listeners.listeners().values()) {
				SubscriptionOptions options = this.listeners.subscriptionOptions(listener);
				result
					.add(new ListenerDescriptor(listener.topic(), listener.description(), options.concurrency(defaults),
							options.maxAttempts(defaults), options.timeout(defaults).toMillis(),
							this.listeners.subscription(listener.topic()) != null, rateLimit(options)));
				described.add(listener.topic());
			}
		}
		for (String topic : snapshot.subscribedTopics()) {
			if (described.add(topic)) {
				// Subscribed through Redeq.subscribe(...) rather than @RedeqListener.
				result.add(new ListenerDescriptor(topic, null, null, null, null, true, null));
			}
		}
		return result;
	}

	private static @Nullable String rateLimit(SubscriptionOptions options) {
		return (options.rateLimitPermits() != null)
				? options.rateLimitPermits() + "/" + options.rateLimitWindow().toMillis() + "ms" : null;
	}

	@ReadOperation
	public DeadJobsDescriptor deadJobs(@Selector String topic, @Nullable Integer offset, @Nullable Integer limit) {
		int from = (offset != null) ? offset : 0;
		int size = (limit != null) ? limit : DEFAULT_LIMIT;
		List<DeadJob> jobs = invalidAsBadRequest(() -> this.admin.deadJobs(topic, from, size));
		long dead = this.admin.stats(topic).dead();
		return new DeadJobsDescriptor(topic, dead, from, size,
				jobs.stream()
					.map((job) -> new DeadJobDescriptor(job.id(), job.payload(), job.attempts(), job.lastError(),
							job.diedAt().toString()))
					.toList());
	}

	@WriteOperation
	public DeadJobsActionResult deadJobsAction(@Selector String topic, String action) {
		return switch (action) {
			case "requeue" -> new DeadJobsActionResult(topic, null, action,
					invalidAsBadRequest(() -> this.admin.requeueAllDead(topic)));
			case "purge" ->
				new DeadJobsActionResult(topic, null, action, invalidAsBadRequest(() -> this.admin.purgeDead(topic)));
			case "purge-delayed" -> new DeadJobsActionResult(topic, null, action,
					invalidAsBadRequest(() -> this.admin.purge(topic, JobState.DELAYED)));
			case "purge-ready" -> new DeadJobsActionResult(topic, null, action,
					invalidAsBadRequest(() -> this.admin.purge(topic, JobState.READY)));
			case "pause" -> new DeadJobsActionResult(topic, null, action, invalidAsBadRequest(() -> {
				this.admin.pause(topic);
				return 1L;
			}));
			case "resume" -> new DeadJobsActionResult(topic, null, action, invalidAsBadRequest(() -> {
				this.admin.resume(topic);
				return 1L;
			}));
			default -> throw new InvalidEndpointRequestException(
					"Unknown action '" + action + "' for topic '" + topic + "'; use " + TOPIC_ACTIONS,
					"Unknown action '" + action + "'; use " + TOPIC_ACTIONS);
		};
	}

	@WriteOperation
	public DeadJobsActionResult deadJobAction(@Selector String topic, @Selector String id, String action) {
		boolean done = switch (action) {
			case "requeue" -> invalidAsBadRequest(() -> this.admin.requeueDead(topic, id));
			case "promote" -> invalidAsBadRequest(() -> this.admin.promote(topic, id));
			case "cancel-recurring" -> invalidAsBadRequest(() -> this.admin.cancelRecurring(topic, id));
			default -> throw new InvalidEndpointRequestException(
					"Unknown action '" + action + "' for job '" + id + "' of topic '" + topic
							+ "'; use \"requeue\", \"promote\" or \"cancel-recurring\"",
					"Unknown action '" + action + "'; use \"requeue\", \"promote\" or \"cancel-recurring\"");
		};
		return new DeadJobsActionResult(topic, id, action, done ? 1 : 0);
	}

	/**
	 * A malformed topic or id, or an out-of-range page, is the caller's mistake: 400, not
	 * 500.
	 */
	private static <T> T invalidAsBadRequest(Supplier<T> operation) {
		try {
			return operation.get();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
		}
	}

	/**
	 * What the endpoint shows of redeq.
	 *
	 * @param instanceId this engine's id (bucket lock owner)
	 * @param prefix the key namespace
	 * @param redisReachable whether the snapshot reached Redis
	 * @param error why it did not
	 * @param refreshedAt when the snapshot was taken
	 * @param migrationLagMillis how long the most overdue delayed job has waited to be
	 * migrated
	 * @param buckets bucket count and the buckets this instance migrates
	 * @param topics counts per topic
	 * @param listeners this instance's listeners
	 * @param recurring the declared recurring jobs
	 */
	public record RedeqDescriptor(String instanceId, String prefix, boolean redisReachable, @Nullable String error,
			String refreshedAt, long migrationLagMillis, BucketsDescriptor buckets, Map<String, TopicDescriptor> topics,
			List<ListenerDescriptor> listeners, List<RecurringDescriptor> recurring) {
	}

	/**
	 * A declared recurring job.
	 *
	 * @param topic the topic of its occurrences
	 * @param id its id
	 * @param cron its cron expression, or {@code null}
	 * @param every its period (ISO-8601), or {@code null}
	 * @param zone the zone of its cron expression
	 * @param missed {@code RUN_ONCE} or {@code SKIP}
	 * @param payload the payload of each occurrence as JSON text
	 * @param nextTick its next tick, or {@code null} while none is planned
	 */
	public record RecurringDescriptor(String topic, String id, @Nullable String cron, @Nullable String every,
			String zone, String missed, String payload, @Nullable String nextTick) {
	}

	/**
	 * Bucket ownership of this instance.
	 *
	 * @param count buckets of the prefix
	 * @param migratorEnabled whether this instance migrates at all
	 * @param owned buckets this instance migrates now
	 */
	public record BucketsDescriptor(int count, boolean migratorEnabled, List<Integer> owned) {
	}

	/**
	 * Counts of one topic.
	 *
	 * @param delayed jobs waiting for their due time
	 * @param ready due jobs waiting for a handler
	 * @param inFlight jobs a handler is running
	 * @param dead jobs whose attempts are used up
	 * @param oldestReadyWaitMillis how long the longest-waiting READY job has been due,
	 * if any
	 * @param paused whether the topic is paused on every instance
	 */
	public record TopicDescriptor(long delayed, long ready, long inFlight, long dead,
			@Nullable Long oldestReadyWaitMillis, boolean paused) {
	}

	/**
	 * A listener of this instance, with its effective settings.
	 *
	 * @param topic the topic it consumes
	 * @param method the annotated method, or {@code null} for a programmatic subscription
	 * @param concurrency handlers at once
	 * @param maxAttempts deliveries before DEAD
	 * @param timeoutMillis handler timeout and lease
	 * @param running whether it is subscribed now
	 * @param rateLimit job starts per window across all instances (such as
	 * {@code 100/1000ms}), or {@code null} when unlimited
	 */
	public record ListenerDescriptor(String topic, @Nullable String method, @Nullable Integer concurrency,
			@Nullable Integer maxAttempts, @Nullable Long timeoutMillis, boolean running, @Nullable String rateLimit) {
	}

	/**
	 * A page of a topic's dead jobs.
	 *
	 * @param topic the topic
	 * @param dead all dead jobs of the topic
	 * @param offset how many were skipped
	 * @param limit the page size asked for
	 * @param jobs the page, most recent first
	 */
	public record DeadJobsDescriptor(String topic, long dead, int offset, int limit, List<DeadJobDescriptor> jobs) {
	}

	/**
	 * One dead job.
	 *
	 * @param id its id
	 * @param payload its payload as JSON text
	 * @param attempts deliveries it had
	 * @param lastError why it died
	 * @param diedAt when it died (Redis clock)
	 */
	public record DeadJobDescriptor(String id, String payload, int attempts, String lastError, String diedAt) {
	}

	/**
	 * What a write operation did.
	 *
	 * @param topic the topic
	 * @param id the job, or {@code null} for the whole topic
	 * @param action {@code requeue}, {@code purge}, {@code pause}, {@code resume},
	 * {@code promote} or {@code cancel-recurring}
	 * @param affected how many jobs were requeued, purged or promoted, or recurring jobs
	 * removed (1 for pause and resume)
	 */
	public record DeadJobsActionResult(String topic, @Nullable String id, String action, long affected) {
	}

}
