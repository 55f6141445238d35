package io.redeq.internal.consumer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.redeq.PolledJob;
import io.redeq.internal.InvalidValueException;
import io.redeq.internal.Validate;

/**
 * The pull consumers of one engine, one per topic polled so far, made at the first poll
 * of a topic and closed with the engine: what
 * {@link io.redeq.RedeqClient#poll(String, Duration)} runs on.
 */
public final class Pollers {

	/** The longest a poll may wait. */
	public static final Duration MAX_WAIT = Duration.ofDays(1);

	private final ConsumerContext context;

	private final Function<String, ConsumerSettings> settings;

	private final Function<String, Set<String>> notRetryable;

	private final Runnable beforeFirstPoll;

	private final Map<String, TopicPoller> byTopic = new ConcurrentHashMap<>();

	private volatile boolean closed;

	/**
	 * Pollers of one engine.
	 * @param context what the engine's consumers share
	 * @param settings a topic's settings for its polled jobs (timeout, max attempts,
	 * backoff, rate limit)
	 * @param notRetryable a topic's exception class names whose failures are DEAD at once
	 * @param beforeFirstPoll run before each topic's first poll (starts watching paused
	 * topics)
	 */
	public Pollers(ConsumerContext context, Function<String, ConsumerSettings> settings,
			Function<String, Set<String>> notRetryable, Runnable beforeFirstPoll) {
		this.context = context;
		this.settings = settings;
		this.notRetryable = notRetryable;
		this.beforeFirstPoll = beforeFirstPoll;
	}

	/**
	 * Takes one due job of {@code topic}, waiting up to {@code maxWait}.
	 * @param topic the topic
	 * @param maxWait how long to wait, zero to only look
	 * @return the job, or empty
	 */
	public Optional<PolledJob> poll(String topic, Duration maxWait) {
		Validate.topic(topic);
		if (maxWait == null || maxWait.isNegative() || maxWait.compareTo(MAX_WAIT) > 0) {
			throw new InvalidValueException("maxWait of a poll of topic '" + topic + "'", maxWait,
					"must be between zero and " + MAX_WAIT);
		}
		checkOpen(topic);
		TopicPoller poller = this.byTopic.computeIfAbsent(topic, this::create);
		if (this.closed) {
			poller.close(); // closed while it was made: close has not seen it
			checkOpen(topic);
		}
		return poller.poll(maxWait);
	}

	private TopicPoller create(String topic) {
		checkOpen(topic);
		this.beforeFirstPoll.run();
		return new TopicPoller(Objects.requireNonNull(this.settings.apply(topic)), this.context,
				this.notRetryable.apply(topic));
	}

	private void checkOpen(String topic) {
		if (this.closed) {
			throw new IllegalStateException("Cannot poll topic '" + topic + "': redeq is closed");
		}
	}

	/** Ends every poll's wait at once; later polls are refused. */
	public void close() {
		this.closed = true;
		for (TopicPoller poller : List.copyOf(this.byTopic.values())) {
			poller.close();
		}
	}

}
