package io.redeq.internal.redis.script;

import java.util.List;

import io.lettuce.core.ScriptOutputType;

/**
 * Every script redeq runs, loaded once per JVM.
 */
public final class Scripts {

	/** The script of {@code lua/schedule.lua}. */
	public static final LuaScript SCHEDULE = LuaScript.job("schedule", ScriptOutputType.MULTI);

	/** The script of {@code lua/migrate.lua}. */
	public static final LuaScript MIGRATE = LuaScript.job("migrate", ScriptOutputType.MULTI);

	/** The script of {@code lua/claim.lua}. */
	public static final LuaScript CLAIM = LuaScript.job("claim", ScriptOutputType.MULTI);

	/** The script of {@code lua/complete.lua}. */
	public static final LuaScript COMPLETE = LuaScript.job("complete", ScriptOutputType.MULTI);

	/** The script of {@code lua/retry.lua}. */
	public static final LuaScript RETRY = LuaScript.job("retry", ScriptOutputType.MULTI);

	/** The script of {@code lua/bury.lua}. */
	public static final LuaScript BURY = LuaScript.job("bury", ScriptOutputType.INTEGER);

	/** The script of {@code lua/extend.lua}. */
	public static final LuaScript EXTEND = LuaScript.job("extend", ScriptOutputType.MULTI);

	/** The script of {@code lua/release.lua}. */
	public static final LuaScript RELEASE = LuaScript.job("release", ScriptOutputType.INTEGER);

	/** The script of {@code lua/release-claim.lua}. */
	public static final LuaScript RELEASE_CLAIM = LuaScript.job("release-claim", ScriptOutputType.INTEGER);

	/** The script of {@code lua/cancel.lua}. */
	public static final LuaScript CANCEL = LuaScript.job("cancel", ScriptOutputType.INTEGER);

	/** The script of {@code lua/cancel-all.lua}. */
	public static final LuaScript CANCEL_ALL = LuaScript.job("cancel-all", ScriptOutputType.MULTI);

	/** The script of {@code lua/reschedule.lua}. */
	public static final LuaScript RESCHEDULE = LuaScript.job("reschedule", ScriptOutputType.MULTI);

	/** The script of {@code lua/find.lua}. */
	public static final LuaScript FIND = LuaScript.job("find", ScriptOutputType.MULTI);

	/** The script of {@code lua/promote.lua}. */
	public static final LuaScript PROMOTE = LuaScript.job("promote", ScriptOutputType.INTEGER);

	/** The script of {@code lua/requeue-dead.lua}. */
	public static final LuaScript REQUEUE_DEAD = LuaScript.job("requeue-dead", ScriptOutputType.INTEGER);

	/** The script of {@code lua/purge-dead.lua}. */
	public static final LuaScript PURGE_DEAD = LuaScript.job("purge-dead", ScriptOutputType.INTEGER);

	/** The script of {@code lua/purge-waiting.lua}. */
	public static final LuaScript PURGE_WAITING = LuaScript.job("purge-waiting", ScriptOutputType.MULTI);

	/** The script of {@code lua/unlock.lua}. */
	public static final LuaScript UNLOCK = LuaScript.job("unlock", ScriptOutputType.INTEGER);

	/** The script of {@code lua/reshard-import.lua}. */
	public static final LuaScript RESHARD_IMPORT = LuaScript.job("reshard-import", ScriptOutputType.INTEGER);

	/** The script of {@code lua/reshard-remove.lua}. */
	public static final LuaScript RESHARD_REMOVE = LuaScript.job("reshard-remove", ScriptOutputType.INTEGER);

	/**
	 * Makes a leased job of a frozen bucket whose lease expired READY again, fencing its
	 * holder, so that a change of the bucket count can move it.
	 */
	public static final LuaScript RESHARD_RECOVER = LuaScript.job("reshard-recover", ScriptOutputType.INTEGER);

	/** The script of {@code lua/upgrade-v1.lua}. */
	public static final LuaScript UPGRADE_V1 = LuaScript.job("upgrade-v1", ScriptOutputType.INTEGER);

	/** The script of {@code lua/upgrade-v2.lua}. */
	public static final LuaScript UPGRADE_V2 = LuaScript.job("upgrade-v2", ScriptOutputType.INTEGER);

	/** The script of {@code lua/recurring-declare.lua}. */
	public static final LuaScript RECURRING_DECLARE = LuaScript.job("recurring-declare", ScriptOutputType.MULTI);

	/** The script of {@code lua/recurring-cancel.lua}. */
	public static final LuaScript RECURRING_CANCEL = LuaScript.job("recurring-cancel", ScriptOutputType.INTEGER);

	/** The script of {@code lua/recurring-refill.lua}. */
	public static final LuaScript RECURRING_REFILL = LuaScript.job("recurring-refill", ScriptOutputType.INTEGER);

	/** The script of {@code lua/inspect.lua}. */
	public static final LuaScript INSPECT = LuaScript.job("inspect", ScriptOutputType.MULTI);

	/** The script of {@code lua/list.lua}. */
	public static final LuaScript LIST = LuaScript.job("list", ScriptOutputType.MULTI);

	/** The script of {@code lua/peek.lua}. */
	public static final LuaScript PEEK = LuaScript.plain("peek", ScriptOutputType.MULTI);

	/** The script of {@code lua/rate-grant.lua}. */
	public static final LuaScript RATE_GRANT = LuaScript.plain("rate-grant", ScriptOutputType.MULTI);

	/** The script of {@code lua/rate-refund.lua}. */
	public static final LuaScript RATE_REFUND = LuaScript.plain("rate-refund", ScriptOutputType.INTEGER);

	/** The script of {@code lua/heartbeat.lua}. */
	public static final LuaScript HEARTBEAT = LuaScript.plain("heartbeat", ScriptOutputType.INTEGER);

	/** The script of {@code lua/record-format.lua}. */
	public static final LuaScript RECORD_FORMAT = LuaScript.plain("record-format", ScriptOutputType.INTEGER);

	/** The script of {@code lua/forget-in-flight-counters.lua}. */
	public static final LuaScript FORGET_IN_FLIGHT_COUNTERS = LuaScript.plain("forget-in-flight-counters",
			ScriptOutputType.INTEGER);

	/** The script of {@code lua/history-max.lua}. */
	public static final LuaScript HISTORY_MAX = LuaScript.plain("history-max", ScriptOutputType.INTEGER);

	/** The script of {@code lua/recurring-import.lua}. */
	public static final LuaScript RECURRING_IMPORT = LuaScript.plain("recurring-import", ScriptOutputType.INTEGER);

	/** The script of {@code lua/recurring-remove.lua}. */
	public static final LuaScript RECURRING_REMOVE = LuaScript.plain("recurring-remove", ScriptOutputType.INTEGER);

	/**
	 * The scripts every job runs (schedule, hand-off, completion) as one function
	 * library, which Redis runs for less CPU than the same scripts by digest.
	 */
	static final FunctionLibrary LIBRARY = FunctionLibrary.of(List.of(SCHEDULE), List.of(MIGRATE, COMPLETE));

	private Scripts() {
	}

}
