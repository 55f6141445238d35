package io.redeq.spring.boot.autoconfigure;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

import io.redeq.Recurring;
import io.redeq.Redeq;
import io.redeq.spring.internal.listener.RedeqListenerEndpointRegistry;

/**
 * Starts the engine (bucket count check, migrator) once the context is refreshed, before
 * the listeners start, so that creating the beans writes nothing to Redis. Closes it
 * (migrator and redeq's own connections) on shutdown after the listeners stopped and
 * before the Redis connection factory stops: the factory shuts its Lettuce client down in
 * its own (earlier) phase, and the migrator must not run on a closed client in between.
 */
class RedeqEngineLifecycle implements SmartLifecycle {

	static final int PHASE = RedeqListenerEndpointRegistry.DEFAULT_PHASE - 100;

	private static final Logger logger = LoggerFactory.getLogger(RedeqEngineLifecycle.class);

	private final Redeq redeq;

	private final List<Recurring> recurring;

	private volatile boolean running;

	RedeqEngineLifecycle(Redeq redeq, List<Recurring> recurring) {
		this.redeq = redeq;
		this.recurring = recurring;
	}

	/**
	 * Starts the engine, then declares the {@code redeq.recurring.*} jobs (declaring one
	 * that exists with the same schedule changes nothing). An application must start
	 * while Redis is down, so a declaration Redis refuses is logged, not thrown: the
	 * recurring job is then declared by the next startup, or by another instance.
	 */
	@Override
	public void start() {
		this.redeq.start();
		for (Recurring job : this.recurring) {
			try {
				this.redeq.client().scheduleRecurring(job);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not declare recurring job '{}' of topic '{}' (redeq.recurring.{}): {}", job.id(),
						job.topic(), job.id(), ex.getMessage());
			}
		}
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.redeq.close();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
