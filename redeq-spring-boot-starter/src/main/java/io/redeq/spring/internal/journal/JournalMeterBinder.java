package io.redeq.spring.internal.journal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The journal's meters: {@code redeq.journal.lag} (events not yet written),
 * {@code redeq.journal.dropped} and {@code redeq.journal.written} (events),
 * {@code redeq.journal.rejected} (events the database refused, set aside),
 * {@code redeq.journal.unmatched} (updates given up because their row never appeared),
 * {@code redeq.journal.reconciled} (jobs Redis buried without an outcome event, journaled
 * DEAD), {@code redeq.journal.redis.data.loss} (1 while a loss of Redis data is detected
 * and not recovered) and {@code redeq.journal.recovered} (jobs re-sent from the journal).
 */
public final class JournalMeterBinder implements MeterBinder {

	private final RedeqJournal journal;

	/**
	 * Meters of one journal.
	 * @param journal the journal
	 */
	public JournalMeterBinder(RedeqJournal journal) {
		this.journal = journal;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		JournalWriter writer = this.journal.writer();
		Gauge.builder("redeq.journal.lag", writer, JournalWriter::lag)
			.description("Journal events not yet written to the database")
			.baseUnit("events")
			.register(registry);
		FunctionCounter.builder("redeq.journal.dropped", writer, JournalWriter::dropped)
			.description("Journal events dropped because the buffer was full")
			.baseUnit("events")
			.register(registry);
		FunctionCounter.builder("redeq.journal.written", writer, JournalWriter::written)
			.description("Journal events written to the database")
			.baseUnit("events")
			.register(registry);
		FunctionCounter.builder("redeq.journal.rejected", writer, JournalWriter::rejected)
			.description("Journal events the database refused for what they hold, set aside")
			.baseUnit("events")
			.register(registry);
		FunctionCounter.builder("redeq.journal.unmatched", writer, JournalWriter::unmatched)
			.description("Journal updates given up because their job's row did not appear in time")
			.baseUnit("events")
			.register(registry);
		FunctionCounter.builder("redeq.journal.reconciled", this.journal, RedeqJournal::reconciled)
			.description("Jobs Redis buried without an outcome event (their instance died), journaled DEAD")
			.baseUnit("jobs")
			.register(registry);
		Gauge
			.builder("redeq.journal.redis.data.loss", this.journal, (journal) -> (journal.lossReason() != null) ? 1 : 0)
			.description("1 while redeq sees that Redis lost its data and the journal is not recovered")
			.register(registry);
		FunctionCounter.builder("redeq.journal.recovered", this.journal, RedeqJournal::recovered)
			.description("Jobs sent to Redis again from the journal")
			.baseUnit("jobs")
			.register(registry);
	}

}
