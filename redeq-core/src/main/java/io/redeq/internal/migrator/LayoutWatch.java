package io.redeq.internal.migrator;

import java.util.function.Consumer;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.internal.redis.BucketLayout;

/**
 * Watches the bucket layout recorded for the prefix from the migrator's heartbeat. A
 * change of the bucket count runs only while no instance heartbeats; an instance whose
 * heartbeat lapsed (a long pause, a partition) may still come back while one runs, or
 * after it moved every job to buckets this instance does not know. Such an instance must
 * not migrate or claim in the old buckets beside the change: the change copies each job
 * before it removes it, and a job this instance moved or claimed in between would stay in
 * both layouts and run twice. So while the recorded layout is not the one this instance
 * runs on, it holds: its migrator gives its buckets back and its consumers claim nothing,
 * and it says so once. It goes on when the layout is its own again (a change that was
 * refused, or one back to its count); after a change to another count it holds until it
 * is restarted, when it follows the recorded count.
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
	 * @param hold told {@code true} when this instance must hold, {@code false} when it
	 * may go on
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
			this.hold.accept(true);
			if (layout.changingTo() != 0) {
				logger.error("redeq prefix '{}': a change of its bucket count from {} to {} (layout generation {}) "
						+ "has begun while this instance runs on {} buckets; it had not heartbeaten within "
						+ "lock-ttl, so the change did not wait for it. It stops migrating and claiming until the "
						+ "change is over; if the count changed, restart it to follow the recorded count", this.prefix,
						layout.buckets(), layout.changingTo(), layout.generation(), this.buckets);
			}
			else {
				logger.error(
						"redeq prefix '{}' is laid out in {} buckets in Redis (layout generation {}), but this "
								+ "instance runs on {}: it migrates and claims nothing until it is restarted, when it "
								+ "follows the recorded count",
						this.prefix, layout.buckets(), layout.generation(), this.buckets);
			}
		}
		else if (runnable && this.holding) {
			this.holding = false;
			this.hold.accept(false);
			logger.info("redeq prefix '{}' is laid out in {} buckets again, as this instance runs: it migrates and "
					+ "claims again", this.prefix, this.buckets);
		}
		return runnable;
	}

}
