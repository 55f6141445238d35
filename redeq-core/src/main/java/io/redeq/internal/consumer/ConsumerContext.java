package io.redeq.internal.consumer;

import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

import io.redeq.JobLifecycleListener;
import io.redeq.RedeqOptions;
import io.redeq.internal.JobEvents;
import io.redeq.internal.WakeUps;
import io.redeq.internal.codec.PayloadCodec;
import io.redeq.internal.control.TopicPauses;
import io.redeq.internal.observation.ProcessObservations;
import io.redeq.internal.redis.RedisJobStore;

/**
 * What every subscription of one engine shares.
 *
 * @param store the job store
 * @param codec the payload codec
 * @param options the engine's options
 * @param events metrics
 * @param listeners lifecycle listeners
 * @param wakeUps where retries report earlier jobs
 * @param timers lease renewals and handler timeouts
 * @param instanceId this engine's id, the prefix of its claim tokens
 * @param localSignals how this engine's migrator wakes its consumers in proxy mode
 * @param observations the observation of handler runs ({@link ProcessObservations#OFF} by
 * default)
 * @param pauses which topics are paused, refreshed while any subscription runs
 * @param handOffs where consumers offer their free slots to this engine's migrator
 */
public record ConsumerContext(RedeqOptions options, RedisJobStore store, PayloadCodec codec, JobEvents events,
		List<JobLifecycleListener> listeners, WakeUps wakeUps, ScheduledExecutorService timers, String instanceId,
		LocalWorkSignals localSignals, ProcessObservations observations, TopicPauses pauses, HandOffs handOffs) {
}
