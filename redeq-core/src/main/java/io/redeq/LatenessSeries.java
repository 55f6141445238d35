package io.redeq;

import java.time.Duration;
import java.time.Instant;

/**
 * How late one topic's jobs started (due time → claim, Redis clock) over consecutive
 * periods of equal length, oldest first: per period, the number of starts, the sum of
 * their lateness and the largest.
 *
 * @param topic the topic
 * @param start the start of the first period
 * @param step the length of each period
 * @param starts jobs started per period
 * @param sumMillis the lateness of those starts added up, in ms, per period
 * @param maxMillis the largest lateness of a start in ms per period, 0 without a start
 */
public record LatenessSeries(String topic, Instant start, Duration step, long[] starts, long[] sumMillis,
		long[] maxMillis) {

	/** How many periods the series covers. */
	public int size() {
		return this.starts.length;
	}

	/** The mean lateness in ms of the starts of period {@code i}, 0 without a start. */
	public long averageMillis(int i) {
		return (this.starts[i] > 0) ? this.sumMillis[i] / this.starts[i] : 0;
	}

	/** The starts of the whole series. */
	public long totalStarts() {
		long total = 0;
		for (long count : this.starts) {
			total += count;
		}
		return total;
	}

	/** The mean lateness in ms over the whole series, 0 without a start. */
	public long overallAverageMillis() {
		long total = totalStarts();
		long sum = 0;
		for (long part : this.sumMillis) {
			sum += part;
		}
		return (total > 0) ? sum / total : 0;
	}

	/** The largest lateness in ms over the whole series, 0 without a start. */
	public long peakMillis() {
		long max = 0;
		for (long part : this.maxMillis) {
			max = Math.max(max, part);
		}
		return max;
	}

}
