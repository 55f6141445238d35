package io.redeq.internal.consumer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

/**
 * Buckets believed to hold READY jobs of a topic, each at most once, oldest first, and
 * what the consumer knows of each one's head: the lowest ready score its READY jobs may
 * have. Filled from wake-up signals and full scans; emptied as claims come back short.
 *
 * <p>
 * A head is a lower bound. A signal or a scan says new jobs may be READY there, with any
 * score: the head is unknown until a read or a claim that no signal overtook finds it. A
 * claim takes the lowest scores, so its last job bounds the rest from below. A head read
 * a while ago may have been lowered by another instance whose signal this consumer did
 * not take, so it is trusted for {@link #TRUSTED_NANOS} only; the fetcher reads it again
 * after that.
 */
final class BucketHints {

	/** How long a head read or left by a claim is trusted. */
	static final long TRUSTED_NANOS = 1_000_000_000L;

	private final ArrayDeque<Integer> queue = new ArrayDeque<>();

	private final BitSet queued = new BitSet();

	/**
	 * Per bucket, the lowest ready score READY jobs there may have:
	 * {@link Double#NEGATIVE_INFINITY} unknown, {@link Double#POSITIVE_INFINITY} none
	 * believed READY.
	 */
	private final double[] heads;

	/** Per bucket, when (nanoClock) its finite head was learned. */
	private final long[] learnedAt;

	/** Per bucket, how many signals said it may hold new READY jobs. */
	private final long[] signals;

	private final LongSupplier nanoClock;

	BucketHints(int buckets) {
		this(buckets, System::nanoTime);
	}

	/**
	 * Hints about {@code buckets} buckets whose heads age on {@code nanoClock}.
	 * @param nanoClock {@code System::nanoTime}, or a fake in tests
	 */
	BucketHints(int buckets, LongSupplier nanoClock) {
		this.heads = new double[buckets];
		Arrays.fill(this.heads, Double.POSITIVE_INFINITY);
		this.learnedAt = new long[buckets];
		this.signals = new long[buckets];
		this.nanoClock = nanoClock;
	}

	/** New jobs may be READY in {@code bucket}, with any score. */
	synchronized void add(int bucket) {
		this.heads[bucket] = Double.NEGATIVE_INFINITY;
		this.signals[bucket]++;
		enqueue(bucket);
	}

	/** Any bucket may hold new READY jobs: each is queued once and its head unknown. */
	synchronized void addAll(int buckets) {
		for (int b = 0; b < buckets; b++) {
			add(b);
		}
	}

	/** Queues {@code bucket} again without changing what is known of its head. */
	synchronized void requeue(int bucket) {
		if (this.heads[bucket] != Double.POSITIVE_INFINITY) {
			enqueue(bucket);
		}
	}

	/** How many signals {@code bucket} had: taken before a read of its head. */
	synchronized long signals(int bucket) {
		return this.signals[bucket];
	}

	/**
	 * A read or a claim found {@code bucket}'s head ({@link Double#POSITIVE_INFINITY}: no
	 * READY job left; for a claim, the score of its last job, which the rest are not
	 * below). It counts only if no signal came since {@code signalsBefore}, taken before
	 * the read or claim was sent: else the head stays unknown. A bucket with READY jobs
	 * stays queued.
	 */
	synchronized void learned(int bucket, double head, long signalsBefore) {
		if (this.signals[bucket] == signalsBefore) {
			learn(bucket, head);
		}
		if (this.heads[bucket] != Double.POSITIVE_INFINITY) {
			enqueue(bucket);
		}
	}

	private void learn(int bucket, double head) {
		this.heads[bucket] = head;
		this.learnedAt[bucket] = this.nanoClock.getAsLong();
	}

	private void enqueue(int bucket) {
		if (!this.queued.get(bucket)) {
			this.queued.set(bucket);
			this.queue.addLast(bucket);
		}
	}

	/**
	 * The lowest head among the buckets other than {@code bucket}, a head no longer
	 * trusted counting as unknown: {@link Double#NEGATIVE_INFINITY} if any is unknown,
	 * {@link Double#POSITIVE_INFINITY} if none holds READY jobs.
	 */
	synchronized double bestHeadBesides(int bucket) {
		long now = this.nanoClock.getAsLong();
		double best = Double.POSITIVE_INFINITY;
		for (int b = 0; b < this.heads.length; b++) {
			double head = this.heads[b];
			if (b == bucket || head == Double.POSITIVE_INFINITY) {
				continue;
			}
			if (head == Double.NEGATIVE_INFINITY || now - this.learnedAt[b] >= TRUSTED_NANOS) {
				return Double.NEGATIVE_INFINITY;
			}
			best = Math.min(best, head);
		}
		return best;
	}

	/**
	 * The heads of {@code buckets}, in the order given, or {@code null} when any is
	 * unknown or no longer trusted.
	 */
	synchronized double @Nullable [] trustedHeads(List<Integer> buckets) {
		long now = this.nanoClock.getAsLong();
		double[] known = new double[buckets.size()];
		for (int i = 0; i < known.length; i++) {
			int b = buckets.get(i);
			double head = this.heads[b];
			if (head == Double.NEGATIVE_INFINITY
					|| (head != Double.POSITIVE_INFINITY && now - this.learnedAt[b] >= TRUSTED_NANOS)) {
				return null;
			}
			known[i] = head;
		}
		return known;
	}

	synchronized @Nullable Integer poll() {
		Integer bucket = this.queue.pollFirst();
		if (bucket != null) {
			this.queued.clear(bucket);
		}
		return bucket;
	}

	/** Takes every queued bucket, oldest hint first. */
	synchronized List<Integer> pollAll() {
		List<Integer> all = new ArrayList<>(this.queue);
		this.queue.clear();
		this.queued.clear();
		return all;
	}

	synchronized boolean isEmpty() {
		return this.queue.isEmpty();
	}

}
