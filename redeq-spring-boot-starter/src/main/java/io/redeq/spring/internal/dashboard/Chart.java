package io.redeq.spring.internal.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import io.redeq.HistoryKind;
import io.redeq.HistorySeries;

/**
 * A throughput chart drawn as inline SVG (the {@code chart} and {@code svg} partials)
 * from the shared history: jobs scheduled, completed and failed (retried or dead) per
 * period. No script and no external library: the page works on closed networks and
 * without JavaScript.
 *
 * @param start the start of the first period
 * @param step the length of a period
 * @param scheduled jobs scheduled per period
 * @param completed jobs completed per period
 * @param failed failed attempts (retried or dead) per period
 */
record Chart(Instant start, Duration step, long[] scheduled, long[] completed, long[] failed) {

	private static final int WIDTH = 600;

	private static final int HEIGHT = 110;

	private static final int TOP = 6;

	private static final int BOTTOM = 2;

	private static final String[] KINDS = { "scheduled", "completed", "failed" };

	/** Periods of {@code series} summed {@code factor} at a time, the newest last. */
	static Chart of(HistorySeries series, int factor) {
		int size = series.size() / factor;
		int skip = series.size() - size * factor;
		long[] scheduled = new long[size];
		long[] completed = new long[size];
		long[] failed = new long[size];
		for (int i = 0; i < size * factor; i++) {
			int source = skip + i;
			scheduled[i / factor] += series.of(HistoryKind.SCHEDULED)[source];
			completed[i / factor] += series.of(HistoryKind.COMPLETED)[source];
			failed[i / factor] += series.of(HistoryKind.RETRIED)[source] + series.of(HistoryKind.DEAD)[source];
		}
		return new Chart(series.start().plus(series.step().multipliedBy(skip)), series.step().multipliedBy(factor),
				scheduled, completed, failed);
	}

	/** The periods of several charts of the same shape, added up. */
	Chart plus(Chart other) {
		long[] s = this.scheduled.clone();
		long[] c = this.completed.clone();
		long[] f = this.failed.clone();
		for (int i = 0; i < s.length && i < other.scheduled.length; i++) {
			s[i] += other.scheduled[i];
			c[i] += other.completed[i];
			f[i] += other.failed[i];
		}
		return new Chart(this.start, this.step, s, c, f);
	}

	static long total(long[] counts) {
		long total = 0;
		for (long count : counts) {
			total += count;
		}
		return total;
	}

	/** The chart with its title and legend (the totals over the whole chart). */
	View view(String title, String id) {
		List<View.Legend> legends = List.of(legend("scheduled", "Scheduled", this.scheduled),
				legend("completed", "Completed", this.completed), legend("failed", "Failed", this.failed));
		return plot("chart", id, null, title, legends, this.step, KINDS, lines(), " per " + Format.span(this.step),
				false);
	}

	/** A small chart without axes, for a table cell. */
	Svg sparkline() {
		return svg(true, KINDS, lines(), max(lines()));
	}

	private long[][] lines() {
		return new long[][] { this.scheduled, this.completed, this.failed };
	}

	private static View.Legend legend(String kind, String label, long[] counts) {
		long total = total(counts);
		return new View.Legend(kind, "total", total, label, Format.count(total));
	}

	/**
	 * Lines of equal length on one scale, the newest value at the right, with the span
	 * and the peak below; the lateness chart shares it with the throughput chart.
	 * @param starts the figure's {@code data-starts}, or {@code null}
	 * @param kinds the CSS class of each line
	 * @param lines the values of each line, one per period
	 * @param peakSuffix what follows the peak below the plot (" per 1m")
	 * @param durations whether the values are milliseconds, shown as durations
	 */
	static View plot(String kind, String id, @Nullable Long starts, String title, List<View.Legend> legends,
			Duration step, String[] kinds, long[][] lines, String peakSuffix, boolean durations) {
		long max = max(lines);
		String peak = (durations ? Format.span(Duration.ofMillis(max)) : Format.count(max)) + peakSuffix;
		return new View(kind, id, starts, title, legends, svg(false, kinds, lines, max),
				Format.span(step.multipliedBy(lines[0].length)), peak);
	}

	private static long max(long[][] lines) {
		long max = 1;
		for (long[] values : lines) {
			for (long value : values) {
				max = Math.max(max, value);
			}
		}
		return max;
	}

	private static Svg svg(boolean spark, String[] kinds, long[][] lines, long max) {
		int width = spark ? 120 : WIDTH;
		int height = spark ? 24 : HEIGHT;
		int top = spark ? 2 : TOP;
		int bottom = spark ? 2 : BOTTOM;
		List<Svg.Line> drawn = new ArrayList<>(lines.length);
		for (int i = 0; i < lines.length; i++) {
			drawn.add(new Svg.Line(kinds[i], points(lines[i], max, width, height, top, bottom)));
		}
		return new Svg(spark ? "spark" : "plot", width, height, spark ? null : height - bottom, drawn);
	}

	private static String points(long[] values, long max, int width, int height, int top, int bottom) {
		StringBuilder points = new StringBuilder();
		double dx = (values.length > 1) ? (double) width / (values.length - 1) : width;
		double range = height - top - bottom;
		for (int i = 0; i < values.length; i++) {
			double x = i * dx;
			double y = height - bottom - range * values[i] / max;
			points.append((i > 0) ? " " : "").append(String.format(Locale.ROOT, "%.1f,%.1f", x, y));
		}
		return points.toString();
	}

	/**
	 * A chart as the {@code chart} partial draws it.
	 *
	 * @param kind the figure's CSS class
	 * @param id its element id
	 * @param starts its {@code data-starts} (jobs started), or {@code null}
	 * @param title its caption
	 * @param legends one per line
	 * @param svg the plot
	 * @param ago how far back it goes ("1h")
	 * @param peak the largest value, with its unit
	 */
	record View(String kind, String id, @Nullable Long starts, String title, List<Legend> legends, Svg svg, String ago,
			String peak) {

		/**
		 * One line's legend.
		 *
		 * @param kind the line's CSS class
		 * @param data the name of its {@code data-} attribute
		 * @param value that attribute's value
		 * @param label its text
		 * @param shown the value as shown
		 */
		record Legend(String kind, String data, long value, String label, String shown) {
		}

	}

	/**
	 * An inline SVG plot (the {@code svg} partial).
	 *
	 * @param kind its CSS class
	 * @param width its view box's width
	 * @param height its view box's height
	 * @param axis the height of the axis line, or {@code null} for none
	 * @param lines the lines
	 */
	record Svg(String kind, int width, int height, @Nullable Integer axis, List<Line> lines) {

		/**
		 * One line.
		 *
		 * @param kind its CSS class
		 * @param points its SVG points
		 */
		record Line(String kind, String points) {
		}

	}

}
