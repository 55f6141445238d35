package io.redeq;

/**
 * The job history all instances of one prefix share: per topic, jobs scheduled,
 * completed, retried and dead, and how late jobs started, per minute for a day and per
 * hour for 31 days. What the dashboard draws; reached through {@link Redeq#history()}.
 *
 * <p>
 * Each instance adds its counts to Redis every few seconds, so the current period lags
 * behind by up to that interval. A read costs a few pipelined commands; not meant for a
 * hot path.
 */
public interface RedeqHistory {

	/**
	 * A topic's counts per minute over the last {@code minutes} minutes, the current
	 * (partial) minute last; at most a day.
	 * @param topic the topic
	 * @param minutes how many minutes
	 * @return the counts, oldest first
	 */
	HistorySeries lastMinutes(String topic, int minutes);

	/**
	 * A topic's counts per hour over the last {@code hours} hours, the current (partial)
	 * hour last; at most 31 days.
	 * @param topic the topic
	 * @param hours how many hours
	 * @return the counts, oldest first
	 */
	HistorySeries lastHours(String topic, int hours);

	/**
	 * How late a topic's jobs started per minute over the last {@code minutes} minutes,
	 * the current (partial) minute last; at most a day.
	 * @param topic the topic
	 * @param minutes how many minutes
	 * @return the lateness, oldest first
	 */
	LatenessSeries latenessLastMinutes(String topic, int minutes);

	/**
	 * How late a topic's jobs started per hour over the last {@code hours} hours, the
	 * current (partial) hour last; at most 31 days.
	 * @param topic the topic
	 * @param hours how many hours
	 * @return the lateness, oldest first
	 */
	LatenessSeries latenessLastHours(String topic, int hours);

}
