package io.redeq.internal.redis;

import java.util.List;

import io.lettuce.core.ScriptOutputType;

/**
 * Every script redeq runs, loaded once per JVM.
 */
final class Scripts {

	static final LuaScript SCHEDULE = LuaScript.job("schedule", ScriptOutputType.MULTI);

	static final LuaScript MIGRATE = LuaScript.job("migrate", ScriptOutputType.MULTI);

	static final LuaScript CLAIM = LuaScript.job("claim", ScriptOutputType.MULTI);

	static final LuaScript COMPLETE = LuaScript.job("complete", ScriptOutputType.MULTI);

	static final LuaScript RETRY = LuaScript.job("retry", ScriptOutputType.MULTI);

	static final LuaScript BURY = LuaScript.job("bury", ScriptOutputType.INTEGER);

	static final LuaScript EXTEND = LuaScript.job("extend", ScriptOutputType.MULTI);

	static final LuaScript RELEASE = LuaScript.job("release", ScriptOutputType.INTEGER);

	static final LuaScript RELEASE_CLAIM = LuaScript.job("release-claim", ScriptOutputType.INTEGER);

	static final LuaScript CANCEL = LuaScript.job("cancel", ScriptOutputType.INTEGER);

	static final LuaScript CANCEL_ALL = LuaScript.job("cancel-all", ScriptOutputType.MULTI);

	static final LuaScript RESCHEDULE = LuaScript.job("reschedule", ScriptOutputType.MULTI);

	static final LuaScript FIND = LuaScript.job("find", ScriptOutputType.MULTI);

	static final LuaScript PROMOTE = LuaScript.job("promote", ScriptOutputType.INTEGER);

	static final LuaScript REQUEUE_DEAD = LuaScript.job("requeue-dead", ScriptOutputType.INTEGER);

	static final LuaScript PURGE_DEAD = LuaScript.job("purge-dead", ScriptOutputType.INTEGER);

	static final LuaScript PURGE_WAITING = LuaScript.job("purge-waiting", ScriptOutputType.MULTI);

	static final LuaScript UNLOCK = LuaScript.job("unlock", ScriptOutputType.INTEGER);

	static final LuaScript RESHARD_IMPORT = LuaScript.job("reshard-import", ScriptOutputType.INTEGER);

	static final LuaScript RESHARD_REMOVE = LuaScript.job("reshard-remove", ScriptOutputType.INTEGER);

	static final LuaScript UPGRADE_V1 = LuaScript.job("upgrade-v1", ScriptOutputType.INTEGER);

	static final LuaScript UPGRADE_V2 = LuaScript.job("upgrade-v2", ScriptOutputType.INTEGER);

	static final LuaScript RECURRING_DECLARE = LuaScript.job("recurring-declare", ScriptOutputType.MULTI);

	static final LuaScript RECURRING_CANCEL = LuaScript.job("recurring-cancel", ScriptOutputType.INTEGER);

	static final LuaScript RECURRING_REFILL = LuaScript.job("recurring-refill", ScriptOutputType.INTEGER);

	static final LuaScript INSPECT = LuaScript.job("inspect", ScriptOutputType.MULTI);

	static final LuaScript LIST = LuaScript.job("list", ScriptOutputType.MULTI);

	static final LuaScript PEEK = LuaScript.plain("peek", ScriptOutputType.MULTI);

	static final LuaScript RATE_GRANT = LuaScript.plain("rate-grant", ScriptOutputType.MULTI);

	static final LuaScript RATE_REFUND = LuaScript.plain("rate-refund", ScriptOutputType.INTEGER);

	static final LuaScript HEARTBEAT = LuaScript.plain("heartbeat", ScriptOutputType.INTEGER);

	static final LuaScript RECORD_FORMAT = LuaScript.plain("record-format", ScriptOutputType.INTEGER);

	static final LuaScript FORGET_IN_FLIGHT_COUNTERS = LuaScript.plain("forget-in-flight-counters",
			ScriptOutputType.INTEGER);

	static final LuaScript HISTORY_MAX = LuaScript.plain("history-max", ScriptOutputType.INTEGER);

	static final LuaScript RECURRING_IMPORT = LuaScript.plain("recurring-import", ScriptOutputType.INTEGER);

	static final LuaScript RECURRING_REMOVE = LuaScript.plain("recurring-remove", ScriptOutputType.INTEGER);

	/**
	 * The scripts every job runs (schedule, hand-off, completion) as one function
	 * library, which Redis runs for less CPU than the same scripts by digest.
	 */
	static final FunctionLibrary LIBRARY = FunctionLibrary.of(List.of(SCHEDULE), List.of(MIGRATE, COMPLETE));

	private Scripts() {
	}

}
