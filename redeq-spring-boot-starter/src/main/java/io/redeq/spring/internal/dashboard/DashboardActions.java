package io.redeq.spring.internal.dashboard;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.redeq.JobState;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.TopicStats;

/**
 * Every action the dashboard offers, in one table: its name in the form, its button and
 * what it does. Pages ask which actions fit a job in a given state or a topic, so a new
 * action is one entry here and one line in {@link #forJob} or {@link #forTopic}.
 */
final class DashboardActions {

	private final Map<String, Action> actions = new LinkedHashMap<>();

	/**
	 * The actions, through the application's client and admin: with the journal on, those
	 * record what an operator changes, so a cancelled job stays cancelled after a
	 * recovery.
	 */
	DashboardActions(RedeqClient client, RedeqAdmin admin) {
		add(new Action("cancel", "Cancel", true, "Cancel this job? It will not run.",
				(topic, id) -> client.cancel(topic, id) ? "Cancelled job " + id
						: "Job " + id + " was no longer waiting; nothing cancelled"));
		add(new Action("requeue", "Requeue", true, null,
				(topic, id) -> admin.requeueDead(topic, id) ? "Requeued dead job " + id + ": it is ready now"
						: "Job " + id + " is no longer dead; nothing requeued"));
		add(new Action("requeue-all", "Requeue all dead", false, "Requeue every dead job of this topic?",
				(topic, id) -> "Requeued " + admin.requeueAllDead(topic) + " dead jobs of " + topic));
		add(new Action("purge", "Purge dead", false, "Delete every dead job of this topic for good?",
				(topic, id) -> "Purged " + admin.purgeDead(topic) + " dead jobs of " + topic));
		add(new Action("purge-delayed", "Cancel all delayed", false,
				"Cancel every delayed job of this topic? They will not run.",
				(topic, id) -> "Cancelled " + admin.purge(topic, JobState.DELAYED) + " delayed jobs of " + topic));
		add(new Action("purge-ready", "Cancel all ready", false,
				"Cancel every ready job of this topic? They will not run.",
				(topic, id) -> "Cancelled " + admin.purge(topic, JobState.READY) + " ready jobs of " + topic));
		add(new Action("promote", "Run now", true, null, (topic, id) -> admin.promote(topic, id)
				? "Job " + id + " is due now" : "Job " + id + " was no longer delayed; nothing promoted"));
		add(new Action("pause", "Pause", false,
				"Pause this topic? Consumers on every instance stop claiming its jobs; scheduling goes on.",
				(topic, id) -> {
					admin.pause(topic);
					return "Paused " + topic + ": no instance claims its jobs until it is resumed";
				}));
		add(new Action("resume", "Resume", false, null, (topic, id) -> {
			admin.resume(topic);
			return "Resumed " + topic;
		}));
	}

	private void add(Action action) {
		this.actions.put(action.name(), action);
	}

	/** The action of that name, or {@code null}. */
	@Nullable Action named(String name) {
		return this.actions.get(name);
	}

	/** What can be done to one job in this state. */
	List<Action> forJob(JobState state) {
		return switch (state) {
			case DELAYED -> List.of(this.actions.get("promote"), this.actions.get("cancel"));
			case READY -> List.of(this.actions.get("cancel"));
			case DEAD -> List.of(this.actions.get("requeue"));
			case IN_FLIGHT -> List.of();
		};
	}

	/**
	 * What can be done to a whole topic: pause or resume it, cancel its delayed or its
	 * ready jobs when it has some, and requeue or purge its dead jobs when it has some.
	 */
	List<Action> forTopic(TopicStats stats, boolean paused) {
		List<Action> topicActions = new ArrayList<>();
		topicActions.add(this.actions.get(paused ? "resume" : "pause"));
		if (stats.delayed() > 0) {
			topicActions.add(this.actions.get("purge-delayed"));
		}
		if (stats.ready() > 0) {
			topicActions.add(this.actions.get("purge-ready"));
		}
		topicActions.addAll(forDeadLetters(stats.dead()));
		return topicActions;
	}

	/** What can be done to a topic's {@code dead} dead jobs at once. */
	List<Action> forDeadLetters(long dead) {
		return (dead > 0) ? List.of(this.actions.get("requeue-all"), this.actions.get("purge")) : List.of();
	}

	/**
	 * One action.
	 *
	 * @param name its name in the form
	 * @param label its button's text
	 * @param perJob whether it acts on one job (the form then carries the job's id)
	 * @param confirm the question the browser asks first, or {@code null}
	 * @param run runs it on a topic and (for per-job actions) an id; returns what
	 * happened, in words
	 */
	record Action(String name, String label, boolean perJob, @Nullable String confirm, Run run) {
	}

	/** What an action does. */
	@FunctionalInterface
	interface Run {

		String apply(String topic, @Nullable String id);

	}

}
