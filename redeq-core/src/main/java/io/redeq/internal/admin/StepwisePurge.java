package io.redeq.internal.admin;

import java.util.List;
import java.util.function.Consumer;

import io.redeq.JobState;

/**
 * An admin whose purge of waiting jobs tells the ids of each step once the step deleted
 * them, so that the starter's journal can record each as cancelled. The engine's admin is
 * one, whatever bucket layout it runs on.
 */
public interface StepwisePurge {

	/**
	 * Purges the topic's jobs in a state, as {@link io.redeq.RedeqAdmin#purge} does, and
	 * tells {@code deleted} the ids of each step's DELAYED or READY jobs (not of DEAD
	 * ones).
	 * @param topic the topic
	 * @param state the state
	 * @param deleted told the ids each step deleted
	 * @return the number of jobs deleted
	 */
	long purge(String topic, JobState state, Consumer<List<String>> deleted);

}
