package io.redeq.spring.boot.autoconfigure;

import org.springframework.context.SmartLifecycle;

import io.redeq.Redeq;
import io.redeq.spring.listener.RedeqListenerEndpointRegistry;

/**
 * Starts the engine (bucket count check, migrator) once the context is refreshed, before
 * the listeners start, so that creating the beans writes nothing to Redis. Closes it
 * (migrator and redeq's own connections) on shutdown after the listeners stopped and
 * before the Redis connection factory stops: the factory shuts its Lettuce client down in
 * its own (earlier) phase, and the migrator must not run on a closed client in between.
 */
class RedeqEngineLifecycle implements SmartLifecycle {

	static final int PHASE = RedeqListenerEndpointRegistry.DEFAULT_PHASE - 100;

	private final Redeq redeq;

	private volatile boolean running;

	RedeqEngineLifecycle(Redeq redeq) {
		this.redeq = redeq;
	}

	@Override
	public void start() {
		this.redeq.start();
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
