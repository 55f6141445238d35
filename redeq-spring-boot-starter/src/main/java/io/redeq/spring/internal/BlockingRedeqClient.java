package io.redeq.spring.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import io.redeq.AsyncRedeqClient;
import io.redeq.PolledJob;
import io.redeq.Recurring;
import io.redeq.RedeqClient;
import io.redeq.RedeqUnavailableException;
import io.redeq.internal.AwaitingRedeqClient;
import io.redeq.internal.schedule.JobScheduler;

/**
 * The blocking view of a decorated {@link AsyncRedeqClient}: each call the asynchronous
 * client has is made there and its reply awaited, so a decorator is written once, on the
 * asynchronous client. What only the blocking client has ({@code cancelAll}, recurring
 * jobs, {@code poll}) goes to the blocking client the decorator wraps.
 *
 * <p>
 * A caller gets the exceptions the wrapped client's own blocking calls throw: an argument
 * the asynchronous client refuses at the call is thrown as it is; over the engine's
 * client, or over another blocking view, a reply is awaited as the engine (or that view)
 * awaits it: bounded in time, with redeq's exception, not a {@link CompletionException}.
 * Over any other client the future's own failure is thrown, unwrapped, and an interrupted
 * wait fails with a {@link RedeqUnavailableException}, the thread's interrupt status
 * kept.
 */
public class BlockingRedeqClient extends AwaitingRedeqClient {

	private final RedeqClient target;

	/**
	 * A blocking view.
	 * @param async the decorated asynchronous client, whose replies are awaited
	 * @param target the blocking client it decorates: for what the asynchronous client
	 * lacks, and how replies are awaited when it is the engine's
	 */
	public BlockingRedeqClient(AsyncRedeqClient async, RedeqClient target) {
		super(async);
		this.target = Objects.requireNonNull(target, "target must not be null");
	}

	/** The blocking client this view's decorator wraps. */
	protected RedeqClient target() {
		return this.target;
	}

	/** Goes to the blocking client: the asynchronous one has no {@code cancelAll}. */
	@Override
	public long cancelAll(String topic, Collection<String> ids) {
		return this.target.cancelAll(topic, ids);
	}

	@Override
	public String scheduleRecurring(Recurring recurring) {
		return this.target.scheduleRecurring(recurring);
	}

	@Override
	public boolean cancelRecurring(String topic, String id) {
		return this.target.cancelRecurring(topic, id);
	}

	@Override
	public Optional<PolledJob> poll(String topic, Duration maxWait) {
		return this.target.poll(topic, maxWait);
	}

	@Override
	protected <T> T await(CompletableFuture<T> reply, String operation) {
		if (this.target instanceof JobScheduler engine) {
			return engine.await(reply, operation);
		}
		if (this.target instanceof BlockingRedeqClient view) {
			// A decorator over a decorator: awaited as the innermost client awaits.
			return view.await(reply, operation);
		}
		return await(reply, operation, this.target);
	}

	private static <T> T await(CompletableFuture<T> reply, String operation, RedeqClient target) {
		try {
			return reply.get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedeqUnavailableException("Interrupted while waiting for " + target + " to answer " + operation,
					ex);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new CompletionException(cause);
		}
	}

}
