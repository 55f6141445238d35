package io.redeq.spring.internal.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.redeq.LatenessSeries;

/**
 * How late jobs started, drawn like the throughput {@link Chart} (inline SVG, same scale
 * and ticks): the average and the largest lateness per period, due time → start. A period
 * without a start draws 0.
 *
 * @param start the start of the first period
 * @param step the length of a period
 * @param starts jobs started per period
 * @param sumMillis their lateness added up per period, ms
 * @param maxMillis the largest lateness per period, ms
 */
record LatenessChart(Instant start, Duration step, long[] starts, long[] sumMillis, long[] maxMillis) {

	static LatenessChart of(LatenessSeries series) {
		return new LatenessChart(series.start(), series.step(), series.starts(), series.sumMillis(),
				series.maxMillis());
	}

	/**
	 * Several topics' lateness of the same shape: starts and sums added, the max of
	 * maxes.
	 */
	LatenessChart plus(LatenessChart other) {
		long[] n = this.starts.clone();
		long[] sum = this.sumMillis.clone();
		long[] max = this.maxMillis.clone();
		for (int i = 0; i < n.length && i < other.starts.length; i++) {
			n[i] += other.starts[i];
			sum[i] += other.sumMillis[i];
			max[i] = Math.max(max[i], other.maxMillis[i]);
		}
		return new LatenessChart(this.start, this.step, n, sum, max);
	}

	long[] averageMillis() {
		long[] average = new long[this.starts.length];
		for (int i = 0; i < average.length; i++) {
			average[i] = (this.starts[i] > 0) ? this.sumMillis[i] / this.starts[i] : 0;
		}
		return average;
	}

	/** The mean lateness of every start in the chart, ms. */
	long overallAverageMillis() {
		long starts = Chart.total(this.starts);
		return (starts > 0) ? Chart.total(this.sumMillis) / starts : 0;
	}

	long peakMillis() {
		long peak = 0;
		for (long max : this.maxMillis) {
			peak = Math.max(peak, max);
		}
		return peak;
	}

	/** The chart with its title and legend (average and max over the whole chart). */
	Chart.View view(String title, String id) {
		List<Chart.View.Legend> legends = List.of(legend("late-average", "Average", overallAverageMillis()),
				legend("late-max", "Max", peakMillis()));
		return Chart.plot("chart lateness", id, Chart.total(this.starts), title, legends, this.step,
				new String[] { "late-average", "late-max" }, new long[][] { averageMillis(), this.maxMillis }, " late",
				true);
	}

	private static Chart.View.Legend legend(String kind, String label, long millis) {
		return new Chart.View.Legend(kind, "ms", millis, label, Format.span(Duration.ofMillis(millis)));
	}

}
