package io.redeq.spring.boot.health;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import io.redeq.spring.journal.RedeqJournal;

/**
 * Health of the redeq journal: DOWN with the reason when redeq noticed that Redis lost
 * its data and the journal's pending jobs are not recovered yet; otherwise UP, with the
 * journal's lag behind Redis (events not yet written), dropped events, events the
 * database refused ({@code rejected}, with the latest as {@code lastRejected}), updates
 * whose row never appeared ({@code unmatched}), jobs found buried in Redis
 * ({@code reconciled}) and the latest write or relay error as details.
 *
 * @since 0.1.0
 */
public class RedeqJournalHealthIndicator implements HealthIndicator {

	private final RedeqJournal journal;

	/**
	 * Reports on one journal.
	 * @param journal the journal
	 */
	public RedeqJournalHealthIndicator(RedeqJournal journal) {
		this.journal = journal;
	}

	@Override
	public Health health() {
		String loss = this.journal.lossReason();
		Health.Builder builder = (loss != null) ? Health.down().withDetail("redisDataLoss", loss) : Health.up();
		builder.withDetail("lag", this.journal.writer().lag())
			.withDetail("dropped", this.journal.writer().dropped())
			.withDetail("recovered", this.journal.recovered())
			.withDetail("rejected", this.journal.writer().rejected())
			.withDetail("unmatched", this.journal.writer().unmatched())
			.withDetail("reconciled", this.journal.reconciled());
		String lastRejected = this.journal.writer().lastRejected();
		if (lastRejected != null) {
			builder.withDetail("lastRejected", lastRejected);
		}
		String writeError = this.journal.writer().lastError();
		if (writeError != null) {
			builder.withDetail("writeError", writeError);
		}
		String relayError = this.journal.relayError();
		if (relayError != null) {
			builder.withDetail("relayError", relayError);
		}
		return builder.build();
	}

}
