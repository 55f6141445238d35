package io.redeq.internal.history;

import java.util.Locale;

/** What the history counts; the lower-case name is part of the history's key names. */
public enum HistoryKind {

	/** Jobs written by a schedule call. */
	SCHEDULED,

	/** Jobs whose handler returned. */
	COMPLETED,

	/** Failed attempts that will run again. */
	RETRIED,

	/** Jobs a handler gave up on (attempts used up, payload unreadable). */
	DEAD;

	/** The name in key names. */
	public String key() {
		return name().toLowerCase(Locale.ROOT);
	}

}
