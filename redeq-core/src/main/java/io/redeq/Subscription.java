package io.redeq;

/**
 * A running consumer of one topic. {@link #close()} stops it gracefully: it stops
 * fetching at once, lets running handlers finish within the shutdown timeout, and hands
 * every unfinished job back to READY.
 *
 * @since 0.1.0
 */
public interface Subscription extends AutoCloseable {

	String topic();

	/** Whether the subscription still fetches jobs. */
	boolean isRunning();

	@Override
	void close();

}
