package io.redeq.spring.internal.dashboard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

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

	Model render(PageContext context) {
		RedeqSnapshot snapshot = this.redeq.refreshSnapshot();
		Map<String, TopicStats> topics = new TreeMap<>(snapshot.topics());
		for (String topic : knownTopics(snapshot)) {
			topics.putIfAbsent(topic, new TopicStats(topic, 0, 0, 0, 0));
		}
		Chart all = null;
		LatenessChart allLateness = null;
		List<Row> rows = new ArrayList<>(topics.size());
		for (TopicStats stats : topics.values()) {
			String topic = stats.topic();
			Chart chart = Chart.of(this.redeq.history().lastMinutes(topic, MINUTES), 1);
			all = (all != null) ? all.plus(chart) : chart;
			LatenessChart lateness = LatenessChart.of(this.redeq.history().latenessLastMinutes(topic, MINUTES));
			allLateness = (allLateness != null) ? allLateness.plus(lateness) : lateness;
			Duration wait = snapshot.oldestReadyWait().get(topic);
			List<Cell> counts = List.of(cell(context, topic, "DELAYED", stats.delayed()),
					cell(context, topic, "READY", stats.ready()), cell(context, topic, "IN_FLIGHT", stats.inFlight()),
					cell(context, topic, "DEAD", stats.dead()));
			rows.add(new Row(topic, context.topicUrl(topic, null), snapshot.pausedTopics().contains(topic), counts,
					(wait != null) ? Format.span(wait) : "–", Format.count(Chart.total(chart.completed())),
					Format.count(Chart.total(chart.failed())), chart.sparkline()));
		}
		return new Model(this.layout.frame(context, "Overview", "overview", snapshot), cards(topics),
				Format.span(snapshot.migrationLag()), snapshot.migrationLag().compareTo(Duration.ofSeconds(5)) > 0,
				Format.time(snapshot.takenAt(), context.now()),
				(all != null) ? all.view("All topics, last hour", "chart-all") : null,
				(allLateness != null) ? allLateness.view("Lateness, all topics, last hour", "chart-lateness") : null,
				rows);
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

	private static List<Card> cards(Map<String, TopicStats> topics) {
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
		return List.of(card("topics", "Topics", topics.size(), ""),
				card("delayed", "Delayed", delayed, "state-delayed"), card("ready", "Ready", ready, "state-ready"),
				card("in-flight", "In flight", inFlight, "state-in_flight"),
				card("dead", "Dead", dead, (dead > 0) ? "state-dead" : ""));
	}

	private static Card card(String id, String label, long value, String kind) {
		return new Card(id, label, value, Format.count(value), kind);
	}

	private static Cell cell(PageContext context, String topic, String state, long count) {
		return new Cell(state, (count > 0) ? "state-" + state.toLowerCase(Locale.ROOT) : "zero",
				context.topicUrl(topic, state), Format.count(count));
	}

	/**
	 * The overview ({@code overview.mustache}).
	 *
	 * @param frame the page's frame
	 * @param cards the totals by state
	 * @param lag the migration lag
	 * @param lagWarn whether it is large enough to stand out
	 * @param counted when the counts were taken
	 * @param all the throughput of all topics, or {@code null} when there is none
	 * @param lateness the lateness of all topics, or {@code null} when there is none
	 * @param topics one row per topic
	 */
	record Model(Layout.Frame frame, List<Card> cards, String lag, boolean lagWarn, Format.Time counted,
			Chart.@Nullable View all, Chart.@Nullable View lateness, List<Row> topics) {
	}

	/**
	 * A total.
	 *
	 * @param id its element id is {@code card-<id>}
	 * @param label its name
	 * @param value the number
	 * @param shown the number as shown
	 * @param kind its CSS class
	 */
	record Card(String id, String label, long value, String shown, String kind) {
	}

	/**
	 * A topic's row.
	 *
	 * @param topic the topic
	 * @param href its page
	 * @param paused whether it is paused
	 * @param counts its counts by state
	 * @param oldestReady how long its oldest READY job has waited
	 * @param completed jobs completed in the last hour
	 * @param failed attempts failed in the last hour
	 * @param spark its last hour as a sparkline
	 */
	record Row(String topic, String href, boolean paused, List<Cell> counts, String oldestReady, String completed,
			String failed, Chart.Svg spark) {
	}

	/**
	 * A count linking to the jobs it counts.
	 *
	 * @param state the state
	 * @param kind its CSS class
	 * @param href the topic's page in that state
	 * @param shown the count as shown
	 */
	record Cell(String state, String kind, String href, String shown) {
	}

}
