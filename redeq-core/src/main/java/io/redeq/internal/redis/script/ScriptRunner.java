package io.redeq.internal.redis.script;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Predicate;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.Timeout;
import org.jspecify.annotations.Nullable;

import io.redeq.RedeqException;
import io.redeq.RedeqUnavailableException;
import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.connection.RefusedForNow;

/**
 * Runs scripts: the hot path's as functions of redeq's library where Redis has it (see
 * {@link FunctionCalls}), the others by digest, falling back to sending the source when
 * Redis does not know it (after a restart or failover its script cache is empty); and
 * waits for replies with a bounded timeout so that no caller ever hangs on an unreachable
 * Redis.
 */
public final class ScriptRunner {

	private static final long TRY_AGAIN_PAUSE_MILLIS = 20;

	/**
	 * What the error replies of a bucket whose layout is changing or changed start with,
	 * after Redis's {@code ERR} (lua/lib/frozen.lua, lua/lib/layout.lua).
	 */
	public static final String LAYOUT_REFUSAL = "redeq-layout:";

	/**
	 * Makes the exception a layout refusal is reported with. The stores' layer sets its
	 * own ({@code io.redeq.internal.redis.LayoutChangedException}) before any script on a
	 * bucket runs: the script machinery knows no store type, so that the Redis layer's
	 * packages depend on each other one way.
	 */
	private static volatile BiFunction<String, Throwable, RedeqException> layoutRefusals = RedeqException::new;

	private final RedisConnections connections;

	private final Duration timeout;

	private final FunctionCalls functions;

	public ScriptRunner(RedisConnections connections, Duration timeout) {
		this(connections, timeout, true);
	}

	/**
	 * A runner on the given connections.
	 * @param connections the connections to run scripts on
	 * @param timeout how long a caller waits for a reply
	 * @param functions whether to load and call redeq's function library where Redis
	 * allows it; off through a proxy, which routes commands by key and may not know
	 * {@code FUNCTION LOAD}
	 */
	public ScriptRunner(RedisConnections connections, Duration timeout, boolean functions) {
		this.connections = connections;
		this.timeout = timeout;
		this.functions = new FunctionCalls(Scripts.LIBRARY, connections, functions);
	}

	public RedisConnections connections() {
		return this.connections;
	}

	public Duration timeout() {
		return this.timeout;
	}

	/**
	 * Whether the hot path's scripts run as functions of redeq's library now, rather than
	 * by {@code EVALSHA}.
	 */
	public boolean callsFunctions() {
		return this.functions.loaded();
	}

	FunctionCalls functions() {
		return this.functions;
	}

	/**
	 * Runs a script. The reply times out after the command timeout, and a timed-out
	 * command is cancelled: Lettuce then never sends it if it still waits in its queue
	 * (as it does while reconnecting), so a call that failed is not applied behind the
	 * caller's back later.
	 */
	public <T> CompletableFuture<T> runAsync(LuaScript script, String[] keys, String... args) {
		CompletableFuture<T> result = new CompletableFuture<>();
		if (this.connections.isSharedOpen()) {
			sendSafely(script, keys, args, result);
		}
		else {
			// Opening the connection blocks for up to Lettuce's connect timeout: not on
			// the caller's thread, which may be an asynchronous client's.
			CompletableFuture.runAsync(() -> sendSafely(script, keys, args, result));
		}
		// Lettuce's timer wheel rather than CompletableFuture.orTimeout: orTimeout wakes
		// a scheduler thread for every command, a cost on every single schedule call.
		Timeout deadline = this.connections.timer()
			.newTimeout((t) -> result.completeExceptionally(new TimeoutException()), this.timeout.toMillis(),
					TimeUnit.MILLISECONDS);
		result.whenComplete((value, ex) -> deadline.cancel());
		return result;
	}

	private <T> void sendSafely(LuaScript script, String[] keys, String[] args, CompletableFuture<T> result) {
		try {
			send(script, keys, args, result);
		}
		catch (RuntimeException ex) {
			result.completeExceptionally(ex);
		}
	}

	private <T> void send(LuaScript script, String[] keys, String[] args, CompletableFuture<T> result) {
		String function = this.functions.functionFor(script);
		if (function == null) {
			sendScript(script, keys, args, result);
			return;
		}
		RedisFuture<T> called = this.connections.commands().fcall(function, script.output(), keys, args);
		settle(called, result, script, keys, args, this.functions::refusedBeforeRunning,
				() -> sendScript(script, keys, args, result));
	}

	/** By digest, and by source when Redis does not know the digest. */
	private <T> void sendScript(LuaScript script, String[] keys, String[] args, CompletableFuture<T> result) {
		RedisClusterAsyncCommands<String, String> commands = this.connections.commands();
		RedisFuture<T> bySha = commands.evalsha(script.sha(), script.output(), keys, args);
		settle(bySha, result, script, keys, args, ScriptRunner::isNoScript, () -> {
			RedisFuture<T> bySource = commands.eval(script.source(), script.output(), keys, args);
			settle(bySource, result, script, keys, args, (ex) -> false, () -> {
			});
		});
	}

	/**
	 * Completes {@code result} with a command's reply. A failure {@code refused} accepts
	 * (Redis refused the command before running it) is answered by {@code instead}, a
	 * TRYAGAIN by sending the script again a moment later.
	 */
	private <T> void settle(RedisFuture<T> command, CompletableFuture<T> result, LuaScript script, String[] keys,
			String[] args, Predicate<Throwable> refused, Runnable instead) {
		cancelWith(result, command);
		command.whenComplete((value, ex) -> {
			if (ex == null) {
				result.complete(value);
			}
			else if (refused.test(ex)) {
				if (!result.isDone()) {
					try {
						instead.run();
					}
					catch (RuntimeException failure) {
						result.completeExceptionally(failure);
					}
				}
			}
			else if (isTryAgain(ex)) {
				sendLater(script, keys, args, result);
			}
			else {
				result.completeExceptionally(ex);
			}
		});
	}

	/**
	 * A Redis Cluster slot in migration refuses a script whose declared keys are split
	 * between its two nodes with TRYAGAIN, before the script runs; the slot settles
	 * within moments, so the script is sent again until the command timeout.
	 */
	private <T> void sendLater(LuaScript script, String[] keys, String[] args, CompletableFuture<T> result) {
		if (!result.isDone()) {
			CompletableFuture.delayedExecutor(TRY_AGAIN_PAUSE_MILLIS, TimeUnit.MILLISECONDS)
				.execute(() -> sendSafely(script, keys, args, result));
		}
	}

	private static <T> void cancelWith(CompletableFuture<T> result, RedisFuture<T> command) {
		result.whenComplete((value, ex) -> {
			if (ex != null && !command.isDone()) {
				command.cancel(false);
			}
		});
	}

	public <T> T run(LuaScript script, String[] keys, String... args) {
		return await(runAsync(script, keys, args), script.toString());
	}

	/**
	 * Waits for a reply, turning Redis and connection failures into redeq's exceptions.
	 */
	public <T> T await(CompletionStage<T> reply, String operation) {
		return await(reply, operation, this.timeout);
	}

	/** Waits up to {@code timeout}, for commands that block on purpose. */
	public <T> T await(CompletionStage<T> reply, String operation, Duration timeout) {
		try {
			return reply.toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			throw new RedeqUnavailableException("Redis did not answer " + operation + " within " + timeout
					+ " (redeq command timeout); it may be down or overloaded", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedeqUnavailableException("Interrupted while waiting for Redis to answer " + operation, ex);
		}
		catch (ExecutionException ex) {
			throw translate(ex.getCause(), operation);
		}
	}

	/**
	 * The reply, failing with redeq's exception for a Redis or connection failure (the
	 * ones {@link #await} throws) rather than Lettuce's or a
	 * {@link java.util.concurrent.CompletionException}: what an asynchronous caller sees.
	 * @param reply the reply
	 * @param operation what was asked, for the message
	 * @return a future completed directly with the value or the translated exception
	 */
	public static <T> CompletableFuture<T> translated(CompletionStage<T> reply, String operation) {
		CompletableFuture<T> result = new CompletableFuture<>();
		reply.whenComplete((value, ex) -> {
			if (ex == null) {
				result.complete(value);
			}
			else {
				result.completeExceptionally(translate(ex, operation));
			}
		});
		return result;
	}

	/**
	 * A failure as redeq's exception (the one {@link #await} throws).
	 * @param ex the failure, possibly wrapped in a {@link CompletionException}
	 * @param operation what was asked, for the message
	 * @return the exception to fail with
	 */
	public static RuntimeException translate(Throwable ex, String operation) {
		Throwable cause = unwrap(ex);
		if (cause instanceof RedeqException redeq) {
			return redeq;
		}
		if (cause instanceof IllegalStateException closed) {
			return closed; // the engine is closed: as the caller's own thread would throw
							// it
		}
		if (cause instanceof TimeoutException) {
			return new RedeqUnavailableException("Redis did not answer " + operation
					+ " within the redeq command timeout; it may be down or overloaded", cause);
		}
		if (cause instanceof RedisConnectionException || cause instanceof RedisCommandTimeoutException
				|| cause instanceof IOException || cause instanceof CancellationException) {
			return new RedeqUnavailableException("Redis unavailable during " + operation + ": " + cause.getMessage(),
					cause);
		}
		if (cause instanceof RedisCommandExecutionException) {
			if (isLayoutRefusal(cause.getMessage())) {
				// Its own message: it names the bucket and the count it moves to.
				return layoutRefusals.apply(cause.getMessage(), cause);
			}
			if (RefusedForNow.matches(cause.getMessage())) {
				return new RedeqUnavailableException("Redis refused " + operation + " for now (" + cause.getMessage()
						+ "); nothing was written, try again later", cause);
			}
			return new RedeqException("Redis rejected " + operation + ": " + cause.getMessage(), cause);
		}
		if (cause instanceof RedisException) {
			// Lettuce's own failures without an answer from Redis: "Connection closed"
			// (a cluster node's connection closed after a failover, with commands still
			// on it), "Currently not connected". The command may have run: callers treat
			// it as unavailable (a claim's token is handed back), not as a refusal.
			return new RedeqUnavailableException("Redis unavailable during " + operation + ": " + cause.getMessage(),
					cause);
		}
		return new RedeqException("Unexpected failure during " + operation + ": " + cause, cause);
	}

	/**
	 * Reports layout refusals with the exception {@code exception} makes from the reply
	 * and Lettuce's failure.
	 * @param exception makes the exception
	 */
	public static void reportLayoutRefusalsWith(BiFunction<String, Throwable, RedeqException> exception) {
		layoutRefusals = exception;
	}

	/**
	 * Whether an error reply refuses a bucket whose layout is changing or changed.
	 * @param message the error reply, with or without its {@code ERR} code
	 * @return true for such a refusal
	 */
	public static boolean isLayoutRefusal(@Nullable String message) {
		if (message == null) {
			return false;
		}
		return message.startsWith(LAYOUT_REFUSAL) || message.startsWith("ERR " + LAYOUT_REFUSAL);
	}

	static Throwable unwrap(Throwable ex) {
		Throwable current = ex;
		while ((current instanceof CompletionException || current instanceof ExecutionException)
				&& current.getCause() != null) {
			current = current.getCause();
		}
		return current;
	}

	private static boolean isTryAgain(Throwable ex) {
		Throwable cause = unwrap(ex);
		return cause.getMessage() != null && cause.getMessage().startsWith("TRYAGAIN");
	}

	private static boolean isNoScript(Throwable ex) {
		Throwable cause = unwrap(ex);
		return cause instanceof RedisNoScriptException
				|| (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"));
	}

}
