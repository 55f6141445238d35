package io.redeq.internal.redis.script;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.redeq.internal.redis.connection.RedisConnections;
import io.redeq.internal.redis.connection.RefusedForNow;

/**
 * Whether redeq's {@link FunctionLibrary} can serve a script call, and its loading.
 * <p>
 * Nothing waits for it: until the library is loaded (on every master of a cluster), and
 * whenever Redis has lost it (a restart without persistence, {@code FUNCTION FLUSH}, a
 * new master), scripts go by {@code EVALSHA} as they always did, and the library is
 * loaded again in the background. Where Redis cannot have it (before Redis 7, or an ACL
 * without {@code FUNCTION LOAD} or {@code FCALL}), redeq says so once and keeps to
 * {@code EVALSHA}.
 */
final class FunctionCalls {

	private static final Logger logger = LoggerFactory.getLogger(FunctionCalls.class);

	/** How long a load that failed for want of a connection waits before the next. */
	private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

	private enum State {

		NOT_LOADED, LOADING, LOADED, UNAVAILABLE

	}

	private final FunctionLibrary library;

	private final RedisConnections connections;

	private final AtomicReference<State> state;

	private volatile long nextLoadNanos = System.nanoTime();

	FunctionCalls(FunctionLibrary library, RedisConnections connections, boolean enabled) {
		this.library = library;
		this.connections = connections;
		this.state = new AtomicReference<>(enabled ? State.NOT_LOADED : State.UNAVAILABLE);
	}

	/**
	 * The function to call for a script, or {@code null} to send the script by
	 * {@code EVALSHA}; the first call of a library script starts loading the library.
	 */
	@Nullable String functionFor(LuaScript script) {
		State now = this.state.get();
		if (now == State.LOADED || now == State.UNAVAILABLE) {
			return (now == State.LOADED) ? this.library.functionOf(script) : null;
		}
		if (now == State.NOT_LOADED && System.nanoTime() - this.nextLoadNanos >= 0
				&& this.library.functionOf(script) != null
				&& this.state.compareAndSet(State.NOT_LOADED, State.LOADING)) {
			load();
		}
		return null;
	}

	/**
	 * Whether Redis refused a function call before running it, so that the script may be
	 * sent by {@code EVALSHA} instead without running twice. Only the call itself can
	 * fail this way: a function cannot call a function, and a command refused inside one
	 * fails it with Redis's script error ("The user executing the script can't run this
	 * command ..."), which neither starts with {@code NOPERM} nor names {@code fcall}.
	 */
	boolean refusedBeforeRunning(Throwable failure) {
		String message = messageOf(failure);
		if (message.startsWith("ERR Function not found")) {
			// Redis lost the library (restart without persistence, FUNCTION FLUSH, a
			// master that joined later): load it again.
			this.nextLoadNanos = System.nanoTime();
			this.state.compareAndSet(State.LOADED, State.NOT_LOADED);
			return true;
		}
		String lower = message.toLowerCase();
		if ((lower.startsWith("noperm") || lower.startsWith("err unknown command")) && lower.contains("fcall")) {
			giveUp("Redis refused FCALL (" + message + ")");
			return true;
		}
		return false;
	}

	/** Whether calls go to the library now. */
	boolean loaded() {
		return this.state.get() == State.LOADED;
	}

	/** Whether redeq found that Redis cannot have the library and keeps to EVALSHA. */
	boolean gaveUp() {
		return this.state.get() == State.UNAVAILABLE;
	}

	private void load() {
		try {
			RedisClusterAsyncCommands<String, String> commands = this.connections.commands();
			CompletionStage<?> loaded = (commands instanceof RedisAdvancedClusterAsyncCommands<String, String> cluster)
					? cluster.masters().commands().functionLoad(this.library.source(), true)
					: commands.functionLoad(this.library.source(), true);
			loaded.whenComplete((value, ex) -> loadEnded(ex));
		}
		catch (RuntimeException ex) {
			loadEnded(ex);
		}
	}

	private void loadEnded(@Nullable Throwable failure) {
		if (failure == null) {
			logger.debug("Loaded redeq's function library {}", this.library.name());
			this.state.compareAndSet(State.LOADING, State.LOADED);
		}
		else if (ScriptRunner.unwrap(failure) instanceof RedisCommandExecutionException
				&& !RefusedForNow.matches(messageOf(failure))) {
			giveUp("Redis refused FUNCTION LOAD (" + messageOf(failure) + ")");
		}
		else {
			// No connection, a node did not answer, or Redis refuses writes for now (out
			// of memory, loading, a replica): try again on a later call.
			this.nextLoadNanos = System.nanoTime() + RETRY_NANOS;
			this.state.compareAndSet(State.LOADING, State.NOT_LOADED);
		}
	}

	private void giveUp(String reason) {
		if (this.state.getAndSet(State.UNAVAILABLE) != State.UNAVAILABLE) {
			logger.info("{}: redeq sends its scripts with EVALSHA, which costs Redis about a fifth more CPU per job. "
					+ "Redis 7 or later with FUNCTION LOAD and FCALL allowed to redeq's user lets redeq use its function library {}.",
					reason, this.library.name());
		}
	}

	private static String messageOf(Throwable failure) {
		String message = ScriptRunner.unwrap(failure).getMessage();
		return (message != null) ? message : "";
	}

}
