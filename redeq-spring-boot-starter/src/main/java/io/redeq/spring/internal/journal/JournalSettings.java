package io.redeq.spring.internal.journal;

import java.time.Duration;

/**
 * How the journal runs: its table and the pace of its background work.
 *
 * @param tablePrefix prefix of the journal's table name
 * @param retention how long finished jobs stay in the journal
 * @param autoRecover whether a detected loss of Redis data is recovered without asking
 * @param relayInterval how often unsent outbox rows are looked for
 * @param relayGrace how old an unsent outbox row must be before the relay takes it
 * @param checkInterval how often Redis is checked for a loss of its data
 * @param bufferCapacity how many journal events wait in memory at most
 * @param batchSize how many rows one journal transaction writes, relays or deletes
 */
public record JournalSettings(String tablePrefix, Duration retention, boolean autoRecover, Duration relayInterval,
		Duration relayGrace, Duration checkInterval, int bufferCapacity, int batchSize) {

	/** How often the retention runs. */
	static final Duration RETENTION_INTERVAL = Duration.ofMinutes(1);

	/**
	 * Checks the values.
	 */
	public JournalSettings {
		JournalSchema.table(tablePrefix);
		requirePositive("redeq.journal.retention", retention);
		requirePositive("redeq.journal.relay-interval", relayInterval);
		requirePositive("redeq.journal.check-interval", checkInterval);
		if (relayGrace.isNegative()) {
			throw new IllegalArgumentException("relay grace must not be negative, but was " + relayGrace);
		}
		if (bufferCapacity < 1) {
			throw new IllegalArgumentException(
					"redeq.journal.buffer-capacity must be at least 1, but was " + bufferCapacity);
		}
		if (batchSize < 1 || batchSize > 10_000) {
			throw new IllegalArgumentException(
					"redeq.journal.batch-size must be between 1 and 10000, but was " + batchSize);
		}
	}

	private static void requirePositive(String name, Duration value) {
		if (value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(name + " must be a positive duration, but was " + value);
		}
	}

	/**
	 * The journal's table name.
	 * @return prefix + {@code job}
	 */
	public String table() {
		return JournalSchema.table(this.tablePrefix);
	}

}
