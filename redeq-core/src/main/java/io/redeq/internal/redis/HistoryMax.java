package io.redeq.internal.redis;

import java.util.concurrent.CompletableFuture;

import io.redeq.internal.redis.script.ScriptRunner;
import io.redeq.internal.redis.script.Scripts;

/**
 * Keeps the largest value of a history field across instances: Redis has no "set if
 * larger" for hash fields, so one small script compares and sets in one step (a read then
 * a write from two instances could lower it).
 */
public final class HistoryMax {

	private final ScriptRunner scripts;

	public HistoryMax(ScriptRunner scripts) {
		this.scripts = scripts;
	}

	/**
	 * Raises {@code field} of the hash {@code key} to {@code value} unless it already
	 * holds more, and sets the hash to expire in {@code ttlMillis}.
	 */
	public CompletableFuture<Long> raise(String key, String field, long value, long ttlMillis) {
		return this.scripts.runAsync(Scripts.HISTORY_MAX, new String[] { key }, field, Long.toString(value),
				Long.toString(ttlMillis));
	}

}
