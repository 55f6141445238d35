package io.redeq.spring.boot.dashboard;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import io.redeq.Redeq;
import io.redeq.RedeqException;
import io.redeq.RedeqSnapshot;
import io.redeq.TopicStats;

/**
 * The first page: every topic with its counts by state, how long its oldest READY job has
 * waited, and its last hour from the shared history; the totals and the migration lag
 * above them.
 */
final class OverviewPage {

	/** Minutes of history the overview draws. */
	static final int MINUTES = 60;

	private final Redeq redeq;

	private final Layout layout;

	OverviewPage(Redeq redeq, Layout layout) {
		this.redeq = redeq;
		this.layout = layout;
	}

	String render(PageContext context) {
		RedeqSnapshot snapshot = this.redeq.refreshSnapshot();
		Map<String, TopicStats> topics = new TreeMap<>(snapshot.topics());
		for (String topic : knownTopics(snapshot)) {
			topics.putIfAbsent(topic, new TopicStats(topic, 0, 0, 0, 0));
		}
		Map<String, Chart> charts = new TreeMap<>();
		Chart all = null;
		LatenessChart allLateness = null;
		for (String topic : topics.keySet()) {
			Chart chart = Chart.of(this.redeq.history().lastMinutes(topic, MINUTES), 1);
			charts.put(topic, chart);
			all = (all != null) ? all.plus(chart) : chart;
			LatenessChart lateness = LatenessChart.of(this.redeq.history().latenessLastMinutes(topic, MINUTES));
			allLateness = (allLateness != null) ? allLateness.plus(lateness) : lateness;
		}
		Html html = new Html();
		html.raw("<h1>Overview</h1>");
		cards(html, context, snapshot, topics);
		if (all != null) {
			all.render(html, "All topics, last hour", "chart-all");
		}
		if (allLateness != null) {
			allLateness.render(html, "Lateness, all topics, last hour", "chart-lateness");
		}
		table(html, context, snapshot, topics, charts);
		return this.layout.page(context, "Overview", "overview", snapshot, html.toString());
	}

	private Set<String> knownTopics(RedeqSnapshot snapshot) {
		if (!snapshot.redisReachable()) {
			return Set.of();
		}
		try {
			return this.redeq.admin().topics();
		}
		catch (RedeqException ex) {
			return new TreeSet<>(); // the status badge already says Redis did not answer
		}
	}

	private static void cards(Html html, PageContext context, RedeqSnapshot snapshot, Map<String, TopicStats> topics) {
		long delayed = 0;
		long ready = 0;
		long inFlight = 0;
		long dead = 0;
		for (TopicStats stats : topics.values()) {
			delayed += stats.delayed();
			ready += stats.ready();
			inFlight += stats.inFlight();
			dead += stats.dead();
		}
		html.raw("<section class=\"cards\">");
		card(html, "topics", "Topics", topics.size(), "");
		card(html, "delayed", "Delayed", delayed, "state-delayed");
		card(html, "ready", "Ready", ready, "state-ready");
		card(html, "in-flight", "In flight", inFlight, "state-in_flight");
		card(html, "dead", "Dead", dead, (dead > 0) ? "state-dead" : "");
		html.raw("<div class=\"card\" id=\"card-migration-lag\"><span>Migration lag</span><b")
			.attr("class", (snapshot.migrationLag().compareTo(Duration.ofSeconds(5)) > 0) ? "warn" : "")
			.raw(">")
			.text(Html.span(snapshot.migrationLag()))
			.raw("</b><small>most overdue delayed job</small></div>");
		html.raw("<div class=\"card\" id=\"card-snapshot\"><span>Counted</span><b>")
			.time(snapshot.takenAt(), context.now())
			.raw("</b><small>exact, over all buckets</small></div></section>");
	}

	private static void card(Html html, String id, String label, long value, String kind) {
		html.raw("<div class=\"card\"")
			.attr("id", "card-" + id)
			.raw("><span>")
			.text(label)
			.raw("</span><b")
			.attr("class", kind)
			.attr("data-count", value)
			.raw(">")
			.count(value)
			.raw("</b></div>");
	}

	private static void table(Html html, PageContext context, RedeqSnapshot snapshot, Map<String, TopicStats> topics,
			Map<String, Chart> charts) {
		html.raw("<table class=\"grid\" id=\"topics\"><thead><tr><th>Topic</th><th class=\"num\">Delayed</th>")
			.raw("<th class=\"num\">Ready</th><th class=\"num\">In flight</th><th class=\"num\">Dead</th>")
			.raw("<th class=\"num\">Oldest ready</th><th class=\"num\">Done 1h</th><th class=\"num\">Failed 1h</th>")
			.raw("<th>Last hour</th></tr></thead><tbody>");
		if (topics.isEmpty()) {
			html.raw("<tr><td colspan=\"9\" class=\"empty\">No topic has had a job under this prefix yet.</td></tr>");
		}
		for (TopicStats stats : topics.values()) {
			String topic = stats.topic();
			Chart chart = charts.get(topic);
			html.raw("<tr")
				.attr("data-topic", topic)
				.raw("><td><a")
				.attr("href", context.topicUrl(topic, null))
				.raw(">")
				.text(topic)
				.raw("</a>");
			if (snapshot.pausedTopics().contains(topic)) {
				html.raw(" <span class=\"badge bad\" data-paused>paused</span>");
			}
			html.raw("</td>");
			countCell(html, context, topic, "DELAYED", stats.delayed());
			countCell(html, context, topic, "READY", stats.ready());
			countCell(html, context, topic, "IN_FLIGHT", stats.inFlight());
			countCell(html, context, topic, "DEAD", stats.dead());
			Duration wait = snapshot.oldestReadyWait().get(topic);
			html.raw("<td class=\"num\">").text((wait != null) ? Html.span(wait) : "–").raw("</td>");
			html.raw("<td class=\"num\" data-kind=\"completed\">").count(Chart.total(chart.completed())).raw("</td>");
			html.raw("<td class=\"num\" data-kind=\"failed\">").count(Chart.total(chart.failed())).raw("</td><td>");
			chart.sparkline(html);
			html.raw("</td></tr>");
		}
		html.raw("</tbody></table>");
	}

	private static void countCell(Html html, PageContext context, String topic, String state, long count) {
		html.raw("<td class=\"num\"")
			.attr("data-state", state)
			.raw("><a")
			.attr("class", (count > 0) ? "state-" + state.toLowerCase(java.util.Locale.ROOT) : "zero")
			.attr("href", context.topicUrl(topic, state))
			.raw(">")
			.count(count)
			.raw("</a></td>");
	}

}
