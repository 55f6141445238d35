package io.redeq.spring.boot.dashboard;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.redeq.DeadJob;
import io.redeq.Redeq;
import io.redeq.RedeqSnapshot;
import io.redeq.TopicStats;

/**
 * Dead letters of every topic: the most recent ones with their errors, and the actions
 * that requeue or purge them.
 */
final class DeadLettersPage {

	/** Dead jobs shown per topic; the topic page pages through the rest. */
	static final int PER_TOPIC = 20;

	private final Redeq redeq;

	private final Layout layout;

	private final DashboardActions actions;

	DeadLettersPage(Redeq redeq, Layout layout, DashboardActions actions) {
		this.redeq = redeq;
		this.layout = layout;
		this.actions = actions;
	}

	String render(PageContext context) {
		RedeqSnapshot snapshot = this.redeq.refreshSnapshot();
		Map<String, Long> dead = new TreeMap<>();
		for (TopicStats stats : snapshot.topics().values()) {
			if (stats.dead() > 0) {
				dead.put(stats.topic(), stats.dead());
			}
		}
		Html html = new Html();
		html.raw("<h1>Dead letters</h1>");
		if (dead.isEmpty()) {
			html.raw("<p class=\"empty\" id=\"no-dead\">No dead jobs. Jobs die when their attempts are used up or ")
				.raw("their payload cannot be read; they stay here until requeued, purged or past the retention.</p>");
		}
		for (Map.Entry<String, Long> topic : dead.entrySet()) {
			section(html, context, topic.getKey(), topic.getValue());
		}
		return this.layout.page(context, "Dead letters", "dead", snapshot, html.toString());
	}

	private void section(Html html, PageContext context, String topic, long count) {
		List<DeadJob> jobs = this.redeq.admin().deadJobs(topic, 0, PER_TOPIC);
		html.raw("<section class=\"dead-topic\"")
			.attr("data-topic", topic)
			.raw("><div class=\"toolbar\"><h2><a")
			.attr("href", context.topicUrl(topic, "DEAD"))
			.raw(">")
			.text(topic)
			.raw("</a> <span class=\"chip state-dead\"")
			.attr("data-count", count)
			.raw(">")
			.count(count)
			.raw(" dead</span></h2><span class=\"spacer\"></span>");
		for (DashboardActions.Action action : this.actions.forDeadLetters(count)) {
			Layout.actionForm(html, context, action, topic, null);
		}
		html.raw("</div><table class=\"grid\"><thead><tr><th>Id</th><th>Died</th><th class=\"num\">Attempts</th>")
			.raw("<th>Error</th><th>Payload</th><th></th></tr></thead><tbody>");
		for (DeadJob job : jobs) {
			html.raw("<tr")
				.attr("data-id", job.id())
				.raw("><td><a class=\"id\"")
				.attr("href", context.topicUrl(topic, "DEAD") + "&id=" + PageContext.encode(job.id()))
				.raw(">")
				.text(job.id())
				.raw("</a></td><td>")
				.time(job.diedAt(), context.now())
				.raw("</td><td class=\"num\">")
				.count(job.attempts())
				.raw("</td><td class=\"error\">")
				.text(job.lastError())
				.raw("</td><td><code class=\"payload-inline\">")
				.text(job.payload())
				.raw("</code></td><td class=\"actions\">");
			for (DashboardActions.Action action : this.actions.forJob(io.redeq.JobState.DEAD)) {
				Layout.actionForm(html, context, action, topic, job.id());
			}
			html.raw("</td></tr>");
		}
		html.raw("</tbody></table>");
		if (count > jobs.size()) {
			html.raw("<p class=\"more\"><a")
				.attr("href", context.topicUrl(topic, "DEAD"))
				.raw(">All ")
				.count(count)
				.raw(" dead jobs of ")
				.text(topic)
				.raw(" →</a></p>");
		}
		html.raw("</section>");
	}

}
