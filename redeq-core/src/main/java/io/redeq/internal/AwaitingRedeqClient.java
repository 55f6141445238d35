package io.redeq.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import io.redeq.AsyncRedeqClient;
import io.redeq.Job;
import io.redeq.JobInfo;
import io.redeq.RedeqClient;

/**
 * A {@link RedeqClient} whose calls that the {@link AsyncRedeqClient} also has are that
 * client's calls plus a wait: one code path for both. An argument the asynchronous client
 * refuses at the call is thrown as it is; how a reply is awaited, and what a failed one
 * throws, is the subclass's {@link #await}. What only the blocking client has is the
 * subclass's too.
 */
public abstract class AwaitingRedeqClient implements RedeqClient {

	private final AsyncRedeqClient awaited;

	/**
	 * A client that awaits {@code awaited}.
	 * @param awaited the asynchronous client whose replies are awaited
	 */
	protected AwaitingRedeqClient(AsyncRedeqClient awaited) {
		this.awaited = Objects.requireNonNull(awaited, "awaited client must not be null");
	}

	/**
	 * Waits for a reply of the asynchronous client.
	 * @param reply the reply
	 * @param operation what was asked, for the message
	 * @param <T> the type of the reply
	 * @return the value of the reply
	 */
	protected abstract <T> T await(CompletableFuture<T> reply, String operation);

	/** The client whose replies are awaited; subclasses may offer another. */
	@Override
	public AsyncRedeqClient async() {
		return this.awaited;
	}

	@Override
	public String schedule(String topic, @Nullable Object payload, Duration delay) {
		return await(this.awaited.schedule(topic, payload, delay), "schedule");
	}

	@Override
	public String scheduleAt(String topic, @Nullable Object payload, Instant dueAt) {
		return await(this.awaited.scheduleAt(topic, payload, dueAt), "schedule");
	}

	@Override
	public String schedule(Job job) {
		return await(this.awaited.schedule(job), "schedule");
	}

	@Override
	public List<String> scheduleAll(Collection<Job> jobs) {
		return await(this.awaited.scheduleAll(jobs), "schedule jobs");
	}

	@Override
	public boolean cancel(String topic, String id) {
		return await(this.awaited.cancel(topic, id), "cancel");
	}

	@Override
	public boolean reschedule(String topic, String id, Duration delay) {
		return await(this.awaited.reschedule(topic, id, delay), "reschedule");
	}

	@Override
	public boolean reschedule(String topic, String id, Instant dueAt) {
		return await(this.awaited.reschedule(topic, id, dueAt), "reschedule");
	}

	@Override
	public Optional<JobInfo> find(String topic, String id) {
		return await(this.awaited.find(topic, id), "find");
	}

}
