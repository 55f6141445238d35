package io.redeq.spring.internal.health;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

import io.redeq.spring.internal.journal.RedeqJournal;

/**
 * Health of the redeq journal: UP, with the journal's lag behind Redis (events not yet
 * written), dropped events, events the database refused ({@code rejected}, with the
 * latest as {@code lastRejected}), updates whose row never appeared ({@code unmatched}),
 * jobs found buried in Redis ({@code reconciled}) and the latest write or relay error as
 * details; or {@value #REDIS_DATA_LOSS}, with the reason under {@code redisDataLoss},
 * when redeq noticed that Redis lost its data and the journal's pending jobs are not
 * recovered yet.
 *
 * <p>
 * The loss is not DOWN: every instance sees the same loss, and neither restarting an
 * instance nor taking it out of the load balancer recovers it, while DOWN would fail
 * {@code /actuator/health} (503) on every instance at once until someone recovers. A
 * status of its own shows the loss on the component, and Spring Boot leaves a status
 * outside {@code management.endpoint.health.status.order} out of the aggregate (and maps
 * it to 200): applications that want the loss to fail the endpoint, or one health group,
 * add it to that order and to {@code http-mapping}. The loss is also logged (WARN) and
 * counted by the gauge {@code redeq.journal.redis.data.loss}.
 *
 * @since 0.1.0
 */
public class RedeqJournalHealthIndicator implements HealthIndicator {

	/**
	 * The status while Redis's loss of data is not recovered: outside Spring Boot's
	 * default status order, so it leaves the aggregate health as it is.
	 */
	static final String REDIS_DATA_LOSS = "REDIS_DATA_LOSS";

	private static final Status DATA_LOSS = new Status(REDIS_DATA_LOSS,
			"Redis lost jobs the journal holds as pending; recover them with RedeqAdmin.recoverFromJournal()");

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
		Health.Builder builder = (loss != null) ? Health.status(DATA_LOSS).withDetail("redisDataLoss", loss)
				: Health.up();
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
