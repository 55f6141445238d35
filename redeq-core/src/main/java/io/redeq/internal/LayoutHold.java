package io.redeq.internal;

import java.time.Duration;

import org.slf4j.Logger;

import io.redeq.internal.redis.LayoutChangedException;

/**
 * Says once that a background loop holds because frozen buckets refuse it while the
 * bucket count changes (see {@link LayoutChangedException}), not once per retry: the loop
 * backs off and tries again until its engine follows the recorded layout. Used from the
 * loop's own thread only.
 */
public final class LayoutHold {

	/**
	 * How long a consumer or a poll waits after a claim refused by a frozen bucket before
	 * it looks again.
	 */
	public static final Duration PAUSE = Duration.ofSeconds(1);

	private final Logger logger;

	private final String who;

	private final String whatStops;

	private boolean held;

	/**
	 * A hold that logs to {@code logger}.
	 * @param logger where the hold is said
	 * @param who the loop, as the line starts ("Consumer of topic 'orders'")
	 * @param whatStops what the loop does not do while it holds ("claims nothing")
	 */
	public LayoutHold(Logger logger, String who, String whatStops) {
		this.logger = logger;
		this.who = who;
		this.whatStops = whatStops;
	}

	/**
	 * A frozen bucket refused the loop: said at INFO the first time since the loop last
	 * got an answer.
	 * @param ex the refusal
	 */
	public void refused(LayoutChangedException ex) {
		if (!this.held) {
			this.held = true;
			this.logger.info("{} {} in buckets whose jobs move to a new bucket count ({}); it holds until its "
					+ "engine follows the recorded layout", this.who, this.whatStops, ex.getMessage());
		}
	}

	/** A bucket answered the loop: a later refusal is news again. */
	public void answered() {
		this.held = false;
	}

}
