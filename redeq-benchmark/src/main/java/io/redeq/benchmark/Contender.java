package io.redeq.benchmark;

import org.jspecify.annotations.Nullable;

/** A system the benchmark measures: redeq or one of its peers. */
interface Contender {

	/** The name in {@code --systems} and in every line: redeq, textbook or redisson. */
	String name();

	/**
	 * Opens the system on keys under {@code namespace}; its handlers report to
	 * {@code tracker}.
	 */
	QueueUnderTest open(String namespace, @Nullable Tracker tracker);

	/** How {@link QueueUnderTest#scheduleBatch} batches, for the RESULT line. */
	String batchHow();

}
