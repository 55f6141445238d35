package io.redeq.spring.boot.dashboard;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import io.redeq.JobState;
import io.redeq.JobView;
import io.redeq.Redeq;
import io.redeq.TopicStats;
import io.redeq.history.JobHistory;

/**
 * One topic: its counts as tabs, its history, a search by id, and a page of its jobs in
 * the chosen state with their payloads and actions.
 */
final class TopicPage {

	static final int PAGE_SIZE = 25;

	/** The deepest job a page may show (see {@code RedeqAdmin.jobs}). */
	private static final int MAX_WINDOW = 10_000;

	private static final int PREVIEW = 90;

	private final Redeq redeq;

	private final Layout layout;

	private final DashboardActions actions;

	TopicPage(Redeq redeq, Layout layout, DashboardActions actions) {
		this.redeq = redeq;
		this.layout = layout;
		this.actions = actions;
	}

	String render(PageContext context, String topic) {
		TopicStats stats = this.redeq.admin().stats(topic);
		JobState state = context.request().param("state").map(TopicPage::stateOf).orElseGet(() -> busiest(stats));
		int page = context.request().param("page").map(Integer::parseInt).orElse(0);
		page = Math.max(0, Math.min(page, MAX_WINDOW / PAGE_SIZE - 1));
		boolean paused = this.redeq.admin().isPaused(topic);
		Html html = new Html();
		html.raw("<h1><a")
			.attr("href", context.url(""))
			.raw(">Topics</a> / <span id=\"topic-name\">")
			.text(topic)
			.raw("</span>")
			.raw(paused ? " <span class=\"badge bad\" id=\"paused\">paused: no instance claims its jobs</span>" : "")
			.raw("</h1>");
		html.raw("<div class=\"toolbar\">");
		search(html, context, topic);
		html.raw("<span class=\"spacer\"></span>");
		for (DashboardActions.Action action : this.actions.forTopic(stats, paused)) {
			Layout.actionForm(html, context, action, topic, null);
		}
		html.raw("</div>");
		context.request()
			.param("id")
			.filter((id) -> !id.isBlank())
			.ifPresent((id) -> found(html, context, topic, id.trim()));
		charts(html, topic);
		tabs(html, context, topic, stats, state);
		jobs(html, context, topic, state, page, count(stats, state));
		return this.layout.page(context, topic, "overview", this.redeq.snapshot(), html.toString());
	}

	private static JobState stateOf(String name) {
		try {
			return JobState.valueOf(name.toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"state must be one of DELAYED, READY, IN_FLIGHT, DEAD, but was '" + name + "'");
		}
	}

	/** The first state that has jobs, in the order a job lives them. */
	private static JobState busiest(TopicStats stats) {
		for (JobState state : JobState.values()) {
			if (count(stats, state) > 0) {
				return state;
			}
		}
		return JobState.DELAYED;
	}

	private static long count(TopicStats stats, JobState state) {
		return switch (state) {
			case DELAYED -> stats.delayed();
			case READY -> stats.ready();
			case IN_FLIGHT -> stats.inFlight();
			case DEAD -> stats.dead();
		};
	}

	private static void search(Html html, PageContext context, String topic) {
		html.raw("<form method=\"get\" class=\"search\"")
			.attr("action", context.topicUrl(topic, null))
			.raw("><input type=\"search\" name=\"id\" id=\"search-id\" placeholder=\"Find a job by id\"")
			.attr("value", context.request().param("id").orElse(""))
			.raw("><button type=\"submit\" id=\"search-button\">Find</button></form>");
	}

	private void found(Html html, PageContext context, String topic, String id) {
		Optional<JobView> job = this.redeq.admin().job(topic, id);
		html.raw("<section class=\"found\" id=\"found\">");
		if (job.isEmpty()) {
			html.raw("<p class=\"empty\">No waiting, running or dead job of ")
				.text(topic)
				.raw(" has the id <code>")
				.text(id)
				.raw("</code>. Finished and cancelled jobs are gone from Redis.</p></section>");
			return;
		}
		JobView view = job.get();
		html.raw("<dl class=\"facts\"><dt>Id</dt><dd><code>").text(view.id()).raw("</code></dd><dt>State</dt><dd>");
		stateChip(html, view.state());
		html.raw("</dd><dt>Due</dt><dd>")
			.time(view.dueAt(), context.now())
			.raw("</dd><dt>Attempts</dt><dd>")
			.count(view.attempts())
			.raw("</dd><dt>Created</dt><dd>")
			.time(view.createdAt(), context.now())
			.raw("</dd>");
		if (view.leaseDeadline() != null) {
			html.raw("<dt>Lease until</dt><dd>").time(view.leaseDeadline(), context.now()).raw("</dd>");
			html.raw("<dt>Instance</dt><dd><code>").text(view.instance()).raw("</code></dd>");
		}
		if (view.lastError() != null) {
			html.raw("<dt>Last error</dt><dd class=\"error\">").text(view.lastError()).raw("</dd>");
		}
		html.raw("</dl><pre class=\"payload\" data-json>").text(view.payload()).raw("</pre>");
		for (DashboardActions.Action action : this.actions.forJob(view.state())) {
			Layout.actionForm(html, context, action, topic, view.id());
		}
		html.raw("</section>");
	}

	private void charts(Html html, String topic) {
		JobHistory history = this.redeq.history();
		html.raw("<section class=\"charts\">");
		Chart.of(history.lastMinutes(topic, 60), 1).render(html, "Last hour, per minute", "chart-hour");
		Chart.of(history.lastMinutes(topic, 24 * 60), 15).render(html, "Last 24 hours, per 15 minutes", "chart-day");
		Chart.of(history.lastHours(topic, 30 * 24), 24).render(html, "Last 30 days, per day", "chart-month");
		LatenessChart.of(history.latenessLastMinutes(topic, 60))
			.render(html, "Lateness, last hour, per minute", "chart-lateness");
		html.raw("</section>");
	}

	private static void tabs(Html html, PageContext context, String topic, TopicStats stats, JobState current) {
		html.raw("<nav class=\"tabs\" id=\"state-tabs\">");
		for (JobState state : JobState.values()) {
			html.raw("<a")
				.attr("href", context.topicUrl(topic, state.name()))
				.attr("data-state", state.name())
				.attr("class",
						"tab state-" + state.name().toLowerCase(Locale.ROOT) + ((state == current) ? " active" : ""))
				.raw(">")
				.text(label(state))
				.raw(" <b>")
				.count(count(stats, state))
				.raw("</b></a>");
		}
		html.raw("</nav>");
	}

	static String label(JobState state) {
		return switch (state) {
			case DELAYED -> "Delayed";
			case READY -> "Ready";
			case IN_FLIGHT -> "In flight";
			case DEAD -> "Dead";
		};
	}

	static void stateChip(Html html, JobState state) {
		html.raw("<span")
			.attr("class", "chip state-" + state.name().toLowerCase(Locale.ROOT))
			.raw(">")
			.text(label(state))
			.raw("</span>");
	}

	private void jobs(Html html, PageContext context, String topic, JobState state, int page, long total) {
		int offset = page * PAGE_SIZE;
		List<JobView> jobs = this.redeq.admin().jobs(topic, state, offset, PAGE_SIZE);
		boolean inFlight = state == JobState.IN_FLIGHT;
		html.raw("<table class=\"grid jobs\" id=\"jobs\"")
			.attr("data-state", state.name())
			.raw("><thead><tr><th>Id</th><th>")
			.text((state == JobState.DEAD) ? "Last due" : "Due")
			.raw("</th><th class=\"num\">Attempts</th><th>Created</th>");
		if (inFlight) {
			html.raw("<th>Lease until</th><th>Instance</th>");
		}
		html.raw("<th>Last error</th><th>Payload</th><th></th></tr></thead><tbody>");
		if (jobs.isEmpty()) {
			html.raw("<tr><td colspan=\"9\" class=\"empty\">No ")
				.text(label(state).toLowerCase(Locale.ROOT))
				.raw(" jobs")
				.text((page > 0) ? " on this page" : "")
				.raw(".</td></tr>");
		}
		for (JobView job : jobs) {
			html.raw("<tr")
				.attr("data-id", job.id())
				.raw("><td><a class=\"id\"")
				.attr("href", context.topicUrl(topic, state.name()) + "&id=" + PageContext.encode(job.id()))
				.raw(">")
				.text(job.id())
				.raw("</a></td><td>")
				.time(job.dueAt(), context.now())
				.raw("</td><td class=\"num\">")
				.count(job.attempts())
				.raw("</td><td>")
				.time(job.createdAt(), context.now())
				.raw("</td>");
			if (inFlight) {
				html.raw("<td>")
					.time(job.leaseDeadline(), context.now())
					.raw("</td><td><code>")
					.text(job.instance())
					.raw("</code></td>");
			}
			html.raw("<td class=\"error\">").text(preview(job.lastError())).raw("</td><td>");
			payload(html, job.payload());
			html.raw("</td><td class=\"actions\">");
			for (DashboardActions.Action action : this.actions.forJob(state)) {
				Layout.actionForm(html, context, action, topic, job.id());
			}
			html.raw("</td></tr>");
		}
		html.raw("</tbody></table>");
		pager(html, context, topic, state, page, jobs.size(), total);
	}

	private static void payload(Html html, String payload) {
		if (payload.length() <= PREVIEW) {
			html.raw("<code class=\"payload-inline\">").text(payload).raw("</code>");
			return;
		}
		html.raw("<details><summary><code>")
			.text(preview(payload))
			.raw("</code></summary><pre class=\"payload\" data-json>")
			.text(payload)
			.raw("</pre></details>");
	}

	private static String preview(@Nullable String text) {
		if (text == null) {
			return "";
		}
		return (text.length() <= PREVIEW) ? text : text.substring(0, PREVIEW) + "…";
	}

	private static void pager(Html html, PageContext context, String topic, JobState state, int page, int shown,
			long total) {
		int from = page * PAGE_SIZE;
		html.raw("<nav class=\"pager\" id=\"pager\"><span>");
		if (shown > 0) {
			html.count(from + 1).raw("–").count(from + shown).raw(" of ").count(total);
		}
		html.raw("</span>");
		String base = context.topicUrl(topic, state.name()) + "&page=";
		if (page > 0) {
			html.raw("<a rel=\"prev\" id=\"page-prev\"")
				.attr("href", base + (page - 1))
				.raw(">")
				.text((state == JobState.DEAD) ? "← Newer" : "← Earlier")
				.raw("</a>");
		}
		boolean more = shown == PAGE_SIZE && from + shown < total && from + shown + PAGE_SIZE <= MAX_WINDOW;
		if (more) {
			html.raw("<a rel=\"next\" id=\"page-next\"")
				.attr("href", base + (page + 1))
				.raw(">")
				.text((state == JobState.DEAD) ? "Older →" : "Later →")
				.raw("</a>");
		}
		html.raw("</nav>");
	}

}
