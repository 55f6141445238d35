package io.redeq.benchmark.peer;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The textbook queue's mover: every 100 ms one Lua script moves the ids that are due from
 * the delay zset to the ready list, at most {@link #CHUNK} per call, and the mover calls
 * it again at once while calls come back full.
 */
final class TextbookMover implements AutoCloseable {

	/** Ids moved per script call: the script unpacks at most this many values at once. */
	static final int CHUNK = 1000;

	static final long INTERVAL_MS = 100;

	/** Calls per tick at most (100k ids), so one tick cannot run on forever. */
	private static final int MAX_CALLS_PER_TICK = 100;

	private static final Logger logger = LoggerFactory.getLogger(TextbookMover.class);

	/**
	 * KEYS[1] delay zset (id -> due time in ms), KEYS[2] ready list; ARGV[1] most ids to
	 * move. Returns how many ids it moved. "Now" is Redis TIME, so the producers' clocks
	 * do not matter.
	 */
	private static final String MOVE = """
			local t = redis.call('TIME')
			local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
			local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
			if #ids > 0 then
			  redis.call('RPUSH', KEYS[2], unpack(ids))
			  redis.call('ZREM', KEYS[1], unpack(ids))
			end
			return #ids
			""";

	private final StatefulRedisConnection<String, String> connection;

	private final ScheduledExecutorService timer;

	private final String[] keys;

	private final String sha;

	private boolean failing;

	TextbookMover(RedisClient client, RedisURI uri, String delayedKey, String readyKey) {
		this.connection = client.connect(uri);
		this.keys = new String[] { delayedKey, readyKey };
		this.sha = this.connection.sync().scriptLoad(MOVE);
		this.timer = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "textbook-mover");
			thread.setDaemon(true);
			return thread;
		});
		this.timer.scheduleWithFixedDelay(this::tick, INTERVAL_MS, INTERVAL_MS, TimeUnit.MILLISECONDS);
	}

	private void tick() {
		RedisCommands<String, String> redis = this.connection.sync();
		try {
			long moved = CHUNK;
			for (int calls = 0; moved == CHUNK && calls < MAX_CALLS_PER_TICK; calls++) {
				moved = redis.evalsha(this.sha, ScriptOutputType.INTEGER, this.keys, Integer.toString(CHUNK));
			}
			this.failing = false;
		}
		catch (RuntimeException ex) {
			// An exception would cancel the timer: log the first of a run, try
			// again next tick.
			if (!this.failing) {
				logger.warn("Textbook mover failed; retrying every {} ms", INTERVAL_MS, ex);
			}
			this.failing = true;
		}
	}

	@Override
	public void close() {
		// Let a running tick finish: interrupting it would only log a failed call.
		this.timer.shutdown();
		try {
			if (!this.timer.awaitTermination(2, TimeUnit.SECONDS)) {
				this.timer.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.connection.close();
	}

}
