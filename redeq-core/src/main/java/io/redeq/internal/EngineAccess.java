package io.redeq.internal;

import java.util.Objects;

import io.redeq.Redeq;
import io.redeq.internal.history.JobHistory;
import io.redeq.internal.schedule.JobRestorer;
import io.redeq.internal.schedule.JournalHooks;

/**
 * The parts of a {@link Redeq} engine that the starter (journal, dashboard) and redeq's
 * own tests need but a user must not: reached here instead of through public methods on
 * {@code Redeq}, which name only API types. {@code Redeq} hands its accessor over when
 * its class is initialised, so it is set before any engine exists.
 */
public final class EngineAccess {

	private static volatile Accessor accessor;

	private EngineAccess() {
	}

	/**
	 * Called once, by {@code Redeq}'s static initialiser.
	 * @param accessor reads an engine's internals
	 */
	public static void install(Accessor accessor) {
		EngineAccess.accessor = Objects.requireNonNull(accessor, "accessor");
	}

	/**
	 * The engine's job history with its writing side (flush, events).
	 * @param redeq the engine
	 * @return the history
	 */
	public static JobHistory history(Redeq redeq) {
		return accessor(redeq).history(redeq);
	}

	/**
	 * Schedules jobs restored from elsewhere with the attempts they already used; the
	 * journal's recovery sends the jobs Redis lost through it.
	 * @param redeq the engine
	 * @return the restorer
	 */
	public static JobRestorer restorer(Redeq redeq) {
		return accessor(redeq).restorer(redeq);
	}

	/**
	 * What the journal needs from scheduling, so that its rows hold what Redis holds.
	 * @param redeq the engine
	 * @return the hooks
	 */
	public static JournalHooks journalHooks(Redeq redeq) {
		return accessor(redeq).journalHooks(redeq);
	}

	private static Accessor accessor(Redeq redeq) {
		Objects.requireNonNull(redeq, "redeq");
		Accessor installed = accessor;
		if (installed == null) {
			throw new IllegalStateException("Redeq has not installed its accessor");
		}
		return installed;
	}

	/** Implemented inside {@code Redeq}, which alone sees its fields. */
	public interface Accessor {

		JobHistory history(Redeq redeq);

		JobRestorer restorer(Redeq redeq);

		JournalHooks journalHooks(Redeq redeq);

	}

}
