package io.redeq;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import io.redeq.internal.JobEvents;
import io.redeq.internal.WakeUps;
import io.redeq.internal.admin.QueueAdmin;
import io.redeq.internal.codec.PayloadCodec;
import io.redeq.internal.consumer.ConsumerContext;
import io.redeq.internal.consumer.ConsumerSettings;
import io.redeq.internal.consumer.HandOffs;
import io.redeq.internal.consumer.LocalWorkSignals;
import io.redeq.internal.consumer.Pollers;
import io.redeq.internal.control.TopicPauses;
import io.redeq.internal.migrator.InstanceDescriptions;
import io.redeq.internal.migrator.Migrator;
import io.redeq.internal.observation.ProcessObservations;
import io.redeq.internal.recurring.RecurringJobs;
import io.redeq.internal.redis.JobQueries;
import io.redeq.internal.redis.KeySpace;
import io.redeq.internal.redis.RecurringStore;
import io.redeq.internal.redis.RedisJobStore;
import io.redeq.internal.redis.script.ScriptRunner;

/**
 * The parts of an engine that work on one bucket layout: the job store and queries on its
 * keys, its recurring jobs, its migrator (or, without one, how earlier jobs are
 * announced), the queue admin, the pollers and what its consumers share. Every bucket
 * number these parts hand out or take means a bucket of this layout. When the engine
 * follows a change of the bucket count, it builds new parts on the new count, moves its
 * subscriptions to them and closes these.
 */
final class LayoutParts {

	final RedeqOptions options;

	final RedisJobStore store;

	final JobQueries queries;

	final RecurringJobs recurring;

	final @Nullable Migrator migrator;

	final WakeUps wakeUps;

	final QueueAdmin admin;

	final Pollers pollers;

	final ConsumerContext consumers;

	/**
	 * Builds the parts without a Redis command or a thread.
	 * @param options the engine's options, with this layout's bucket count
	 * @param engine what every layout shares
	 */
	LayoutParts(RedeqOptions options, Shared engine) {
		this.options = options;
		KeySpace keys = new KeySpace(options.prefix(), options.buckets());
		this.store = new RedisJobStore(keys, engine.scripts(), options.proxyMode());
		this.queries = new JobQueries(keys, engine.scripts());
		this.recurring = new RecurringJobs(new RecurringStore(keys, engine.scripts()), this::earlierJob);
		LocalWorkSignals localSignals = options.proxyMode() ? LocalWorkSignals.create() : LocalWorkSignals.NONE;
		HandOffs handOffs = new HandOffs(!engine.cluster() && !options.proxyMode());
		this.migrator = options.migratorEnabled() ? new Migrator(this.store, options, engine.instanceId(),
				engine.events(), localSignals, handOffs, this.recurring, engine.description(),
				engine.instanceListeners(), (holding) -> engine.hold().accept(this, holding)) : null;
		this.wakeUps = (this.migrator != null) ? this.migrator : wakeUpsWithoutMigrator(this.store, options);
		this.admin = new QueueAdmin(this.store, this.queries, this.recurring, engine.pauses());
		this.consumers = new ConsumerContext(options, this.store, engine.codec(), engine.events(), engine.listeners(),
				this.wakeUps, engine.timers(), engine.instanceId(), localSignals, engine.processObservations(),
				engine.pauses(), handOffs);
		this.pollers = new Pollers(this.consumers, engine.pollSettings(), engine.pollNotRetryable(),
				engine.beforeFirstPoll());
	}

	int buckets() {
		return this.options.buckets();
	}

	// Declaring a recurring job wakes its bucket's migrator like scheduling a job does.
	private void earlierJob(int bucket, long dueAtMillis) {
		this.wakeUps.earlierJob(bucket, dueAtMillis);
	}

	/**
	 * How an engine that migrates nothing tells the owner of a bucket about an earlier
	 * job: on the wake-up channel, or, in proxy mode, which forbids PUBLISH, not at all
	 * (the owner finds the job at its next sweep).
	 * @param store the job store
	 * @param options the options
	 * @return where earlier jobs are reported
	 */
	private static WakeUps wakeUpsWithoutMigrator(RedisJobStore store, RedeqOptions options) {
		if (options.proxyMode()) {
			return (bucket, dueAt) -> {
			};
		}
		return (bucket, dueAt) -> store.publishWake(bucket, dueAt).exceptionally((ex) -> 0L);
	}

	/** Starts the migrator, if these parts have one. */
	void start() {
		if (this.migrator != null) {
			this.migrator.start();
		}
	}

	/** Stops the pollers and the migrator (which gives its buckets back). */
	void close() {
		this.pollers.close();
		if (this.migrator != null) {
			this.migrator.close();
		}
	}

	/**
	 * What every layout of one engine shares.
	 *
	 * @param instanceId the engine's instance id
	 * @param scripts the script runner on the engine's connections
	 * @param cluster whether Redis is a cluster
	 * @param codec the payload codec
	 * @param events where job events go
	 * @param listeners the lifecycle listeners
	 * @param timers the engine's timer thread
	 * @param processObservations how handler runs are observed
	 * @param pauses the paused topics
	 * @param description how this instance describes itself
	 * @param instanceListeners the engine's subscriptions, as its description lists them
	 * @param hold told when the migrator of some parts holds or goes on (see
	 * {@code LayoutWatch})
	 * @param pollSettings a polled topic's settings
	 * @param pollNotRetryable a polled topic's not-retryable exceptions
	 * @param beforeFirstPoll run before a topic's first poll
	 */
	record Shared(String instanceId, ScriptRunner scripts, boolean cluster, PayloadCodec codec, JobEvents events,
			List<JobLifecycleListener> listeners, ScheduledExecutorService timers,
			ProcessObservations processObservations, TopicPauses pauses, InstanceDescriptions description,
			Supplier<List<InstanceInfo.Listener>> instanceListeners, BiConsumer<LayoutParts, Boolean> hold,
			Function<String, ConsumerSettings> pollSettings, Function<String, Set<String>> pollNotRetryable,
			Runnable beforeFirstPoll) {
	}

}
