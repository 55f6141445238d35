package io.redeq;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.lettuce.core.ScoredValue;

/**
 * What a topic's rate limiter granted, read from its grants log in Redis every 20 ms by a
 * thread of its own. Each grant stays in the log for at least its window, so sampling far
 * more often than that sees every grant, and its last version (after the refund of what
 * its claim did not use).
 */
final class GrantLog implements AutoCloseable {

	private final Map<String, Grant> grants = new ConcurrentHashMap<>();

	private final Thread sampler;

	private volatile boolean running = true;

	GrantLog(Supplier<List<ScoredValue<String>>> read) {
		this.sampler = new Thread(() -> {
			long until = System.nanoTime() + 120_000_000_000L;
			while (this.running && System.nanoTime() < until) {
				for (ScoredValue<String> entry : read.get()) {
					String member = entry.getValue();
					int bar = member.lastIndexOf('|');
					this.grants.put(member.substring(0, bar),
							new Grant((long) entry.getScore(), Integer.parseInt(member.substring(bar + 1))));
				}
				try {
					Thread.sleep(20); // this recorder's sampling interval, not a wait
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}, "grant-log");
		this.sampler.setDaemon(true);
		this.sampler.start();
	}

	/** Permits granted in total (after refunds). */
	long total() {
		return this.grants.values().stream().mapToLong(Grant::permits).sum();
	}

	/**
	 * The most permits granted in any window of this length, by the Redis time of each
	 * grant.
	 */
	long mostInAnyWindow(long windowMillis) {
		List<Grant> all = new ArrayList<>(this.grants.values());
		long most = 0;
		for (Grant from : all) {
			long sum = 0;
			for (Grant other : all) {
				if (other.at() >= from.at() && other.at() < from.at() + windowMillis) {
					sum += other.permits();
				}
			}
			most = Math.max(most, sum);
		}
		return most;
	}

	/** Redis time of the last grant minus that of the first, in ms. */
	long spanMillis() {
		long first = this.grants.values().stream().filter((g) -> g.permits() > 0).mapToLong(Grant::at).min().orElse(0);
		long last = this.grants.values().stream().filter((g) -> g.permits() > 0).mapToLong(Grant::at).max().orElse(0);
		return last - first;
	}

	@Override
	public void close() throws InterruptedException {
		this.running = false;
		this.sampler.join(5000);
	}

	private record Grant(long at, int permits) {
	}

}
