package io.redeq.spring.internal.dashboard;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import io.redeq.JobState;
import io.redeq.JobView;
import io.redeq.Redeq;
import io.redeq.RedeqHistory;
import io.redeq.TopicStats;

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

	Model render(PageContext context, String topic) {
		TopicStats stats = this.redeq.admin().stats(topic);
		JobState state = context.request().param("state").map(TopicPage::stateOf).orElseGet(() -> busiest(stats));
		int page = context.request().param("page").map(Integer::parseInt).orElse(0);
		page = Math.max(0, Math.min(page, MAX_WINDOW / PAGE_SIZE - 1));
		boolean paused = this.redeq.admin().isPaused(topic);
		String searched = context.request().param("id").orElse("");
		Found found = searched.isBlank() ? null : found(context, topic, searched.trim());
		List<Tab> tabs = new ArrayList<>();
		for (JobState each : JobState.values()) {
			tabs.add(new Tab(context.topicUrl(topic, each.name()), each.name(),
					"tab " + kind(each) + ((each == state) ? " active" : ""), label(each),
					Format.count(count(stats, each))));
		}
		int offset = page * PAGE_SIZE;
		List<JobView> views = this.redeq.admin().jobs(topic, state, offset, PAGE_SIZE);
		List<Job> jobs = new ArrayList<>(views.size());
		for (JobView job : views) {
			jobs.add(new Job(job.id(), context.jobUrl(topic, state.name(), job.id()),
					Format.time(job.dueAt(), context.now()), Format.count(job.attempts()),
					Format.time(job.createdAt(), context.now()), Format.time(job.leaseDeadline(), context.now()),
					job.instance(), preview(job.lastError()), payload(job.payload()),
					Layout.forms(context, this.actions.forJob(state), topic, job.id())));
		}
		String none = "No " + label(state).toLowerCase(Locale.ROOT) + " jobs" + ((page > 0) ? " on this page" : "")
				+ ".";
		return new Model(this.layout.frame(context, topic, "overview", this.redeq.snapshot()), topic, context.url(""),
				paused, context.topicUrl(topic, null), searched,
				Layout.forms(context, this.actions.forTopic(stats, paused), topic, null), found, charts(topic), tabs,
				state.name(), (state == JobState.DEAD) ? "Last due" : "Due", state == JobState.IN_FLIGHT, jobs, none,
				pager(context, topic, state, page, views.size(), count(stats, state)));
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

	private Found found(PageContext context, String topic, String id) {
		Optional<JobView> job = this.redeq.admin().job(topic, id);
		if (job.isEmpty()) {
			return new Found(topic, id, null);
		}
		JobView view = job.get();
		return new Found(topic, id,
				new Found.Facts(view.id(), kind(view.state()), label(view.state()),
						Format.time(view.dueAt(), context.now()), Format.count(view.attempts()),
						Format.time(view.createdAt(), context.now()),
						(view.leaseDeadline() != null) ? Format.time(view.leaseDeadline(), context.now()) : null,
						view.instance(), view.lastError(), view.payload(),
						Layout.forms(context, this.actions.forJob(view.state()), topic, view.id())));
	}

	private List<Chart.View> charts(String topic) {
		RedeqHistory history = this.redeq.history();
		return List.of(Chart.of(history.lastMinutes(topic, 60), 1).view("Last hour, per minute", "chart-hour"),
				Chart.of(history.lastMinutes(topic, 24 * 60), 15).view("Last 24 hours, per 15 minutes", "chart-day"),
				Chart.of(history.lastHours(topic, 30 * 24), 24).view("Last 30 days, per day", "chart-month"),
				LatenessChart.of(history.latenessLastMinutes(topic, 60))
					.view("Lateness, last hour, per minute", "chart-lateness"));
	}

	static String label(JobState state) {
		return switch (state) {
			case DELAYED -> "Delayed";
			case READY -> "Ready";
			case IN_FLIGHT -> "In flight";
			case DEAD -> "Dead";
		};
	}

	/** The CSS class of a state. */
	private static String kind(JobState state) {
		return "state-" + state.name().toLowerCase(Locale.ROOT);
	}

	private static Payload payload(String payload) {
		return (payload.length() <= PREVIEW) ? new Payload(payload, null) : new Payload(preview(payload), payload);
	}

	private static String preview(@Nullable String text) {
		if (text == null) {
			return "";
		}
		return (text.length() <= PREVIEW) ? text : text.substring(0, PREVIEW) + "…";
	}

	private static Pager pager(PageContext context, String topic, JobState state, int page, int shown, long total) {
		int from = page * PAGE_SIZE;
		String range = (shown > 0)
				? Format.count(from + 1) + "–" + Format.count(from + shown) + " of " + Format.count(total) : "";
		String base = context.topicUrl(topic, state.name()) + "&page=";
		boolean dead = state == JobState.DEAD;
		Pager.Link prev = (page > 0) ? new Pager.Link(base + (page - 1), dead ? "← Newer" : "← Earlier") : null;
		boolean more = shown == PAGE_SIZE && from + shown < total && from + shown + PAGE_SIZE <= MAX_WINDOW;
		Pager.Link next = more ? new Pager.Link(base + (page + 1), dead ? "Older →" : "Later →") : null;
		return new Pager(range, prev, next);
	}

	/**
	 * A topic's page ({@code topic.mustache}).
	 *
	 * @param frame the page's frame
	 * @param topic the topic
	 * @param overview the overview's address
	 * @param paused whether the topic is paused
	 * @param search where the search form goes
	 * @param searched the id searched for, or empty
	 * @param forms what can be done to the whole topic
	 * @param found the job searched for, or {@code null} when there was no search
	 * @param charts its charts
	 * @param tabs one per state
	 * @param state the state whose jobs are listed
	 * @param dueHeading the heading of the due column
	 * @param inFlight whether the jobs are in flight (with lease and instance columns)
	 * @param jobs this page of jobs
	 * @param none what an empty page says
	 * @param pager the links to the pages before and after
	 */
	record Model(Layout.Frame frame, String topic, String overview, boolean paused, String search, String searched,
			List<Layout.Form> forms, @Nullable Found found, List<Chart.View> charts, List<Tab> tabs, String state,
			String dueHeading, boolean inFlight, List<Job> jobs, String none, Pager pager) {
	}

	/**
	 * The answer to a search by id.
	 *
	 * @param topic the topic
	 * @param id the id searched for
	 * @param job the job, or {@code null} when no job has that id
	 */
	record Found(String topic, String id, @Nullable Facts job) {

		/**
		 * All about one job.
		 *
		 * @param id its id
		 * @param stateKind its state's CSS class
		 * @param stateLabel its state
		 * @param due its due time
		 * @param attempts its attempts
		 * @param created when it was scheduled
		 * @param lease its lease deadline, or {@code null} unless in flight
		 * @param instance the instance that holds it, or {@code null}
		 * @param error its last error, or {@code null}
		 * @param payload its whole payload
		 * @param forms what can be done to it
		 */
		record Facts(String id, String stateKind, String stateLabel, Format.Time due, String attempts,
				Format.Time created, Format.@Nullable Time lease, @Nullable String instance, @Nullable String error,
				String payload, List<Layout.Form> forms) {
		}

	}

	/**
	 * A tab of the state tabs.
	 *
	 * @param href the topic's page in that state
	 * @param state the state's name
	 * @param kind its CSS classes
	 * @param label the state, in words
	 * @param shown the topic's count in that state
	 */
	record Tab(String href, String state, String kind, String label, String shown) {
	}

	/**
	 * A job's row.
	 *
	 * @param id its id
	 * @param href its page
	 * @param due its due time
	 * @param attempts its attempts
	 * @param created when it was scheduled
	 * @param lease its lease deadline (in flight)
	 * @param instance the instance that holds it (in flight), or {@code null}
	 * @param error the start of its last error
	 * @param payload its payload
	 * @param forms what can be done to it
	 */
	record Job(String id, String href, Format.Time due, String attempts, Format.Time created, Format.Time lease,
			@Nullable String instance, String error, Payload payload, List<Layout.Form> forms) {
	}

	/**
	 * A payload in a table cell: whole when short, else its start with the whole behind
	 * it.
	 *
	 * @param preview what the cell shows
	 * @param whole the whole payload when it is longer than the preview, else
	 * {@code null}
	 */
	record Payload(String preview, @Nullable String whole) {
	}

	/**
	 * The pager below the jobs.
	 *
	 * @param range which jobs the page shows ("1–25 of 80"), or empty
	 * @param prev the page before, or {@code null}
	 * @param next the page after, or {@code null}
	 */
	record Pager(String range, @Nullable Link prev, @Nullable Link next) {

		/**
		 * A link to another page.
		 *
		 * @param href its address
		 * @param label its text
		 */
		record Link(String href, String label) {
		}

	}

}
