package io.redeq.internal.consumer;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.Observation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import io.redeq.Delivery;
import io.redeq.JobHandler;
import io.redeq.internal.LogOnce;
import io.redeq.internal.codec.PayloadCodec;
import io.redeq.internal.observation.ProcessObservations;
import io.redeq.internal.redis.ClaimedJob;

/**
 * Runs one claimed job on its worker thread: reads the payload into the listener's type,
 * calls the handler with the topic and job id in the MDC, interrupts it at its timeout,
 * and stores the outcome of whoever settled the job.
 */
final class HandlerInvocation {

	private static final Logger logger = LoggerFactory.getLogger(HandlerInvocation.class);

	private final ConsumerSettings settings;

	private final JobHandler<Object> handler;

	private final PayloadCodec codec;

	private final JobOutcomes outcomes;

	private final ScheduledExecutorService timers;

	private final Workers workers;

	private final LogOnce outcomeFailures = new LogOnce(logger);

	private final ProcessObservations observations;

	HandlerInvocation(ConsumerSettings settings, JobHandler<Object> handler, PayloadCodec codec, JobOutcomes outcomes,
			ScheduledExecutorService timers, Workers workers, ProcessObservations observations) {
		this.observations = observations;
		this.settings = settings;
		this.handler = handler;
		this.codec = codec;
		this.outcomes = outcomes;
		this.timers = timers;
		this.workers = workers;
	}

	void run(RunningJob runningJob) {
		if (!runningJob.begin(Thread.currentThread())) {
			this.workers.finished(runningJob); // given back on close before it began
			return;
		}
		ClaimedJob job = runningJob.job;
		Delivery delivery = new Delivery(job.id(), job.topic(), job.attempt(), Instant.ofEpochMilli(job.dueAt()),
				Instant.ofEpochMilli(job.createdAt()));
		runningJob.timeout = this.timers.schedule(() -> timedOut(runningJob, delivery), timeoutOf(job).toMillis(),
				TimeUnit.MILLISECONDS);
		MDC.put("redeq.topic", job.topic());
		MDC.put("redeq.jobId", job.id());
		// The handler runs in the observation's scope, so what it observes (an HTTP call,
		// a query) joins the trace that scheduled the job. Observation.NOOP when off.
		Observation observation = this.observations.start(delivery, job.traceContext());
		try (Observation.Scope scope = observation.openScope()) {
			// Inside the try: whatever a listener does, the slot comes back below.
			this.outcomes.started(job, delivery);
			invoke(runningJob, delivery, observation);
		}
		finally {
			observation.stop();
			runningJob.end();
			// The slot comes back before the completion goes to Redis: the fetcher claims
			// the next job while the completion waits for others or for its answer (the
			// finished job's lease is renewed until then, see Acknowledgements).
			this.workers.finished(runningJob);
			MDC.remove("redeq.topic");
			MDC.remove("redeq.jobId");
			// A pooled thread must not carry a timeout's interrupt into its next job.
			Thread.interrupted();
		}
		this.outcomes.sendCompletions();
	}

	private void invoke(RunningJob runningJob, Delivery delivery, Observation observation) {
		ClaimedJob job = runningJob.job;
		try {
			Object payload;
			try {
				payload = this.codec.read(job.payload(), this.settings.payloadType());
			}
			catch (RuntimeException ex) {
				observation.error(ex);
				if (runningJob.settle()) {
					settleSafely(() -> this.outcomes.dead(job, delivery, "payload cannot be read as "
							+ this.settings.payloadType().getTypeName() + ": " + ex.getMessage()));
				}
				return;
			}
			this.handler.handle(payload, delivery);
			if (runningJob.settle()) {
				settleSafely(() -> this.outcomes.completed(job, delivery, took(runningJob)));
			}
		}
		catch (Throwable ex) {
			observation.error(ex);
			if (runningJob.settle()) {
				settleSafely(() -> this.outcomes.failed(job, delivery, ex, took(runningJob)));
			}
			if (ex instanceof VirtualMachineError error) {
				throw error;
			}
		}
	}

	private void timedOut(RunningJob runningJob, Delivery delivery) {
		if (!runningJob.settle()) {
			return;
		}
		runningJob.interrupt();
		// The slot comes back now, even if the handler ignores the interrupt and
		// keeps its thread.
		this.workers.finished(runningJob);
		Duration timeout = timeoutOf(runningJob.job);
		try {
			this.workers.execute(() -> settleSafely(() -> this.outcomes.failed(runningJob.job, delivery,
					new HandlerTimeoutException(timeout), timeout)));
		}
		catch (RejectedExecutionException ex) {
			// closing: the job stays IN_FLIGHT and is reclaimed when its lease expires
		}
	}

	/** The job's own timeout if it set one, else the subscription's. */
	private Duration timeoutOf(ClaimedJob job) {
		return job.settings().timeout(this.settings.timeout());
	}

	private static Duration took(RunningJob runningJob) {
		return Duration.ofNanos(System.nanoTime() - runningJob.beganNanos());
	}

	private void settleSafely(Runnable outcome) {
		try {
			outcome.run();
			this.outcomeFailures.recovered("Consumer of topic '{}' stores outcomes again", this.settings.topic());
		}
		catch (RuntimeException ex) {
			this.outcomeFailures.failed("Consumer of topic '" + this.settings.topic()
					+ "' could not store a job's outcome; the job stays IN_FLIGHT and runs again when its lease expires",
					ex);
		}
	}

}
