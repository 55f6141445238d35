package io.redeq;

/**
 * A running consumer of one topic. {@link #close()} stops it gracefully: it stops
 * fetching at once, lets running handlers finish within the shutdown timeout, and hands
 * every unfinished job back to READY, except one whose handler ignored its interrupt and
 * still runs: that job stays IN_FLIGHT until its lease expires.
 *
 * @since 0.1.0
 */
public interface Subscription extends AutoCloseable {

	/**
	 * The topic this subscription consumes.
	 * @return the topic
	 */
	String topic();

	/**
	 * Whether the subscription still fetches jobs.
	 * @return {@code true} until it or its engine is closed
	 */
	boolean isRunning();

	@Override
	void close();

}
