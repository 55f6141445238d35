package io.redeq.spring.boot.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

import io.redeq.history.HistoryKind;
import io.redeq.history.HistorySeries;

/**
 * A throughput chart drawn as inline SVG from the shared history: jobs scheduled,
 * completed and failed (retried or dead) per period. No script and no external library:
 * the page works on closed networks and without JavaScript.
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
	void render(Html html, String title, String id) {
		html.raw("<figure class=\"chart\"")
			.attr("id", id)
			.raw("><figcaption><span class=\"chart-title\">")
			.text(title)
			.raw("</span>");
		legend(html, "scheduled", "Scheduled", total(this.scheduled));
		legend(html, "completed", "Completed", total(this.completed));
		legend(html, "failed", "Failed", total(this.failed));
		html.raw("</figcaption>");
		svg(html, false);
		html.raw("</figure>");
	}

	/** A small chart without axes, for a table cell. */
	void sparkline(Html html) {
		svg(html, true);
	}

	private static void legend(Html html, String kind, String label, long total) {
		html.raw("<span class=\"legend ")
			.raw(kind)
			.raw("\"")
			.attr("data-total", total)
			.raw("><i></i>")
			.text(label)
			.raw(" <b>")
			.count(total)
			.raw("</b></span>");
	}

	private void svg(Html html, boolean spark) {
		plot(html, spark, this.step, new String[] { "scheduled", "completed", "failed" },
				new long[][] { this.scheduled, this.completed, this.failed }, " per " + Html.span(this.step), false);
	}

	/**
	 * Draws lines of equal length on one scale, the newest value at the right; the
	 * lateness chart shares it with the throughput chart.
	 * @param kinds the CSS class of each line
	 * @param lines the values of each line, one per period
	 * @param peakSuffix what follows the peak below the plot (" per 1m")
	 * @param durations whether the values are milliseconds, shown as durations
	 */
	static void plot(Html html, boolean spark, Duration step, String[] kinds, long[][] lines, String peakSuffix,
			boolean durations) {
		int width = spark ? 120 : WIDTH;
		int height = spark ? 24 : HEIGHT;
		int top = spark ? 2 : TOP;
		int bottom = spark ? 2 : BOTTOM;
		long max = 1;
		for (long[] values : lines) {
			for (long value : values) {
				max = Math.max(max, value);
			}
		}
		html.raw("<svg")
			.attr("class", spark ? "spark" : "plot")
			.attr("viewBox", "0 0 " + width + " " + height)
			.attr("preserveAspectRatio", "none")
			.attr("role", "img")
			.raw(">");
		if (!spark) {
			html.raw("<line class=\"axis\" x1=\"0\" x2=\"" + width + "\" y1=\"" + (height - bottom) + "\" y2=\""
					+ (height - bottom) + "\"/>");
		}
		for (int i = 0; i < lines.length; i++) {
			line(html, kinds[i], lines[i], max, width, height, top, bottom);
		}
		html.raw("</svg>");
		if (!spark) {
			// Labels in HTML below the plot: the SVG stretches to the figure's width,
			// text in it would stretch with it.
			html.raw("<div class=\"ticks\"><span>")
				.text(Html.span(step.multipliedBy(lines[0].length)) + " ago")
				.raw("</span><span>peak ");
			if (durations) {
				html.text(Html.span(Duration.ofMillis(max)));
			}
			else {
				html.count(max);
			}
			html.text(peakSuffix).raw("</span><span>now</span></div>");
		}
	}

	private static void line(Html html, String kind, long[] values, long max, int width, int height, int top,
			int bottom) {
		StringBuilder points = new StringBuilder();
		double dx = (values.length > 1) ? (double) width / (values.length - 1) : width;
		double range = height - top - bottom;
		for (int i = 0; i < values.length; i++) {
			double x = i * dx;
			double y = height - bottom - range * values[i] / max;
			points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
		}
		html.raw("<polyline class=\"").raw(kind).raw("\" points=\"").raw(points.toString().trim()).raw("\"/>");
	}

}
