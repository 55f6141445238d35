package io.redeq;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Counts of one topic over consecutive periods of equal length, oldest first.
 *
 * @param topic the topic
 * @param start the start of the first period
 * @param step the length of each period
 * @param counts per kind, one count per period
 */
public record HistorySeries(String topic, Instant start, Duration step, Map<HistoryKind, long[]> counts) {

	/** The counts of one kind, one per period. */
	public long[] of(HistoryKind kind) {
		return this.counts.get(kind);
	}

	/** How many periods the series covers. */
	public int size() {
		return this.counts.get(HistoryKind.SCHEDULED).length;
	}

	/** The sum of one kind over the whole series. */
	public long total(HistoryKind kind) {
		long total = 0;
		for (long count : of(kind)) {
			total += count;
		}
		return total;
	}

}
