package io.redeq.spring.internal.journal;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Updates the journal's writer could not apply yet, tried again with later writes for a
 * bounded time. Two kinds wait:
 * <ul>
 * <li>an update that found no row: the job's insert is still queued behind it (the job
 * ran before its "scheduled" event was queued), or another instance's writer lags, or the
 * outbox row of a transaction is not committed yet;</li>
 * <li>an update a finished row refused: a job scheduled again under the same id may still
 * replace that row (its insert is behind), and the update belongs to it.</li>
 * </ul>
 * Each is tried again after 0.1, 0.2, 0.4... seconds (at most {@link #MAX_RETRY} apart)
 * until {@code rowWait} has passed since its first miss; then it is given up. An update
 * whose row never appeared is counted ({@link #unmatched()}): a step the journal misses.
 * One a finished row kept refusing was stale news of that row's job, and goes quietly.
 * Memory is bounded: past {@code capacity} entries the oldest is given up first.
 *
 * <p>
 * Used by the writer thread only, except the counter.
 */
final class RowWaits {

	private static final Log logger = LogFactory.getLog(RowWaits.class);

	private static final long FIRST_RETRY = Duration.ofMillis(100).toNanos();

	static final Duration MAX_RETRY = Duration.ofSeconds(2);

	private final Duration rowWait;

	private final int capacity;

	/** Roughly in the order of their first miss: the first entry is among the oldest. */
	private final Deque<Waiting> entries = new ArrayDeque<>();

	private final AtomicLong unmatched = new AtomicLong();

	private long givenUp;

	private @Nullable String example;

	RowWaits(Duration rowWait, int capacity) {
		if (rowWait.isNegative()) {
			throw new IllegalArgumentException("the journal's row wait must not be negative, but was " + rowWait);
		}
		this.rowWait = rowWait;
		this.capacity = Math.max(1, capacity);
	}

	Duration rowWait() {
		return this.rowWait;
	}

	/**
	 * Updates given up because their row never appeared.
	 * @return the count since start
	 */
	long unmatched() {
		return this.unmatched.get();
	}

	int size() {
		return this.entries.size();
	}

	/**
	 * An update missed (again); it waits, or is given up if its time is over.
	 * @param event the update
	 * @param previous its earlier wait, or null at its first miss
	 * @param rowMissing whether it found no row
	 * @param now the nano time
	 */
	void missed(JournalEvent.Changed event, @Nullable Waiting previous, boolean rowMissing, long now) {
		long since = (previous != null) ? previous.since() : now;
		int tries = (previous != null) ? previous.tries() + 1 : 0;
		long pause = Math.min(FIRST_RETRY << Math.min(tries, 20), MAX_RETRY.toNanos());
		Waiting wait = new Waiting(event, since, now + pause, tries, rowMissing);
		if (now - since >= this.rowWait.toNanos()) {
			giveUp(wait);
			return;
		}
		this.entries.addLast(wait);
		if (this.entries.size() > this.capacity) {
			giveUp(this.entries.pollFirst());
		}
	}

	boolean anyDue(long now) {
		for (Waiting wait : this.entries) {
			if (now - wait.nextTry() >= 0) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Takes the updates whose turn has come, to be tried with the next write.
	 * @param now the nano time
	 * @return them, oldest first
	 */
	List<Waiting> takeDue(long now) {
		List<Waiting> due = new ArrayList<>();
		for (Iterator<Waiting> it = this.entries.iterator(); it.hasNext();) {
			Waiting wait = it.next();
			if (now - wait.nextTry() >= 0) {
				it.remove();
				due.add(wait);
			}
		}
		return due;
	}

	/**
	 * The updates given up since the last call.
	 * @return their count and one of them
	 */
	GivenUp drainGivenUp() {
		GivenUp result = new GivenUp(this.givenUp, this.example);
		this.givenUp = 0;
		this.example = null;
		return result;
	}

	private void giveUp(Waiting wait) {
		JournalEvent.Changed event = wait.event();
		if (!wait.rowMissing()) {
			if (logger.isDebugEnabled()) {
				logger.debug("redeq journal dropped " + event.state() + " of job '" + event.id() + "' of topic '"
						+ event.topic() + "': its row finished, and stayed so");
			}
			return;
		}
		this.unmatched.incrementAndGet();
		this.givenUp++;
		if (this.example == null) {
			this.example = event.state() + " of job '" + event.id() + "' of topic '" + event.topic() + "'";
		}
	}

	/**
	 * An update waiting for its row.
	 *
	 * @param event the update
	 * @param since when it first missed (nano time)
	 * @param nextTry when it is tried again (nano time)
	 * @param tries how often it missed
	 * @param rowMissing whether the last miss found no row at all (else a finished row
	 * refused it)
	 */
	record Waiting(JournalEvent.Changed event, long since, long nextTry, int tries, boolean rowMissing) {
	}

	/** What was given up since the last report. */
	record GivenUp(long count, @Nullable String example) {
	}

}
