package io.redeq.spring.internal.dashboard;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import io.redeq.DeadJob;
import io.redeq.JobState;
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

	Model render(PageContext context) {
		RedeqSnapshot snapshot = this.redeq.refreshSnapshot();
		Map<String, Long> dead = new TreeMap<>();
		for (TopicStats stats : snapshot.topics().values()) {
			if (stats.dead() > 0) {
				dead.put(stats.topic(), stats.dead());
			}
		}
		List<Topic> topics = new ArrayList<>(dead.size());
		for (Map.Entry<String, Long> topic : dead.entrySet()) {
			topics.add(topic(context, topic.getKey(), topic.getValue()));
		}
		return new Model(this.layout.frame(context, "Dead letters", "dead", snapshot), topics);
	}

	private Topic topic(PageContext context, String topic, long count) {
		List<DeadJob> jobs = this.redeq.admin().deadJobs(topic, 0, PER_TOPIC);
		List<Job> rows = new ArrayList<>(jobs.size());
		for (DeadJob job : jobs) {
			rows.add(new Job(job.id(), context.jobUrl(topic, "DEAD", job.id()),
					Format.time(job.diedAt(), context.now()), Format.count(job.attempts()), job.lastError(),
					job.payload(), Layout.forms(context, this.actions.forJob(JobState.DEAD), topic, job.id())));
		}
		return new Topic(topic, context.topicUrl(topic, "DEAD"), count, Format.count(count),
				Layout.forms(context, this.actions.forDeadLetters(count), topic, null), rows, count > jobs.size());
	}

	/**
	 * The dead-letter page ({@code dead.mustache}).
	 *
	 * @param frame the page's frame
	 * @param topics the topics with dead jobs
	 */
	record Model(Layout.Frame frame, List<Topic> topics) {
	}

	/**
	 * A topic's dead jobs.
	 *
	 * @param topic the topic
	 * @param href its page of dead jobs
	 * @param count how many there are
	 * @param shown the count as shown
	 * @param forms what can be done to all of them
	 * @param jobs the most recent ones
	 * @param more whether there are more than shown
	 */
	record Topic(String topic, String href, long count, String shown, List<Layout.Form> forms, List<Job> jobs,
			boolean more) {
	}

	/**
	 * A dead job.
	 *
	 * @param id its id
	 * @param href its page
	 * @param died when it died
	 * @param attempts its attempts, as shown
	 * @param error its last error
	 * @param payload its payload
	 * @param forms what can be done to it
	 */
	record Job(String id, String href, Format.Time died, String attempts, @Nullable String error, String payload,
			List<Layout.Form> forms) {
	}

}
