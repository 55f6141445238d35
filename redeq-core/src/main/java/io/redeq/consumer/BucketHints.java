package io.redeq.consumer;

import java.util.ArrayDeque;
import java.util.BitSet;

import org.jspecify.annotations.Nullable;

/**
 * Buckets believed to hold READY jobs of a topic, each at most once, oldest first. Filled
 * from wake-up signals and full scans; emptied as claims come back short.
 */
final class BucketHints {

	private final ArrayDeque<Integer> queue = new ArrayDeque<>();

	private final BitSet queued = new BitSet();

	synchronized void add(int bucket) {
		if (!this.queued.get(bucket)) {
			this.queued.set(bucket);
			this.queue.addLast(bucket);
		}
	}

	synchronized void addAll(int buckets) {
		for (int b = 0; b < buckets; b++) {
			add(b);
		}
	}

	synchronized @Nullable Integer poll() {
		Integer bucket = this.queue.pollFirst();
		if (bucket != null) {
			this.queued.clear(bucket);
		}
		return bucket;
	}

	synchronized boolean isEmpty() {
		return this.queue.isEmpty();
	}

}
