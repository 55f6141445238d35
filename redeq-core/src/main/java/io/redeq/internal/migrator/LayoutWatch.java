package io.redeq.internal.migrator;

import java.util.function.Consumer;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.internal.redis.BucketLayout;

/**
 * Watches the bucket layout recorded for the prefix from the migrator's heartbeat. While
 * the recorded layout is not the one this instance runs on (a change of the bucket count
 * has begun, or ended on another count), this instance holds: its migrator gives its
 * buckets back and its consumers claim nothing, and it says so once. The buckets of a
 * change refuse both anyway (they are frozen while their jobs move); holding keeps the
 * instance from trying. At every check while it holds, it tells the engine again, so that
 * the engine follows the new count as soon as the change is over; it goes on by itself
 * when the layout is its own again (a change back to its count).
 */
final class LayoutWatch {

	private static final Logger logger = LoggerFactory.getLogger(LayoutWatch.class);

	private final Supplier<BucketLayout> layouts;

	private final String prefix;

	private final int buckets;

	private final Consumer<Boolean> hold;

	/** Only the migrator's thread reads and writes it. */
	private boolean holding;

	/**
	 * A watch for an instance on {@code buckets} buckets.
	 * @param layouts reads the recorded layout
	 * @param prefix the prefix, for the log
	 * @param buckets the count this instance runs on
	 * @param hold told {@code true} at every check while this instance must hold,
	 * {@code false} once when it may go on
	 */
	LayoutWatch(Supplier<BucketLayout> layouts, String prefix, int buckets, Consumer<Boolean> hold) {
		this.layouts = layouts;
		this.prefix = prefix;
		this.buckets = buckets;
		this.hold = hold;
	}

	/**
	 * Reads the recorded layout (one command) and holds or releases this instance when
	 * its answer changed.
	 * @return whether this instance may migrate and claim on its buckets
	 */
	boolean check() {
		BucketLayout layout = this.layouts.get();
		boolean runnable = layout.isRunnableWith(this.buckets);
		if (!runnable && !this.holding) {
			this.holding = true;
			if (layout.changingTo() != 0) {
				logger.info("redeq prefix '{}': a change of its bucket count from {} to {} (layout generation {}) "
						+ "has begun; this instance runs on {} buckets and stops migrating and claiming until the "
						+ "change is over, then follows the recorded count", this.prefix, layout.buckets(),
						layout.changingTo(), layout.generation(), this.buckets);
			}
			else {
				logger.info("redeq prefix '{}' is laid out in {} buckets in Redis (layout generation {}), but this "
						+ "instance runs on {}: it migrates and claims nothing on them and follows the "
						+ "recorded count", this.prefix, layout.buckets(), layout.generation(), this.buckets);
			}
		}
		if (!runnable) {
			this.hold.accept(true);
		}
		else if (this.holding) {
			this.holding = false;
			this.hold.accept(false);
			logger.info("redeq prefix '{}' is laid out in {} buckets again, as this instance runs: it migrates and "
					+ "claims again", this.prefix, this.buckets);
		}
		return runnable;
	}

}
