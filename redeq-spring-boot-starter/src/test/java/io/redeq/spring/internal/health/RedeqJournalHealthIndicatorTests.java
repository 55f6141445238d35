package io.redeq.spring.internal.health;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.boot.health.actuate.endpoint.SimpleHttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.SimpleStatusAggregator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import io.redeq.spring.internal.journal.JournalWriter;
import io.redeq.spring.internal.journal.RedeqJournal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * Redis's loss of data shows on the {@code redeqJournal} component with a status of its
 * own and the reason, without failing {@code /actuator/health} by default: every instance
 * sees the same loss, and neither a restart (a liveness probe) nor taking the instance
 * out of the load balancer (readiness) recovers it. An application that wants it to fail
 * the endpoint says so with Spring Boot's status order and HTTP mapping.
 */
class RedeqJournalHealthIndicatorTests {

	private static final String LOSS = "Redis lost its data: 3 of 3 sampled pending jobs are unknown to Redis";

	@Test
	void aLossShowsOnTheComponentWithItsReason() {
		Health health = new RedeqJournalHealthIndicator(journal(LOSS)).health();
		assertThat(health.getStatus().getCode()).isEqualTo("REDIS_DATA_LOSS");
		assertThat(health.getDetails()).containsEntry("redisDataLoss", LOSS).containsKeys("lag", "dropped");
		assertThat(new RedeqJournalHealthIndicator(journal(null)).health().getStatus()).isEqualTo(Status.UP);
	}

	/** Before, DOWN: 503 on every instance, and liveness probes on it restarted them. */
	@Test
	void byDefaultALossLeavesTheAggregateHealthUpAnd200() {
		Status loss = new RedeqJournalHealthIndicator(journal(LOSS)).health().getStatus();
		Status aggregate = new SimpleStatusAggregator().getAggregateStatus(Set.of(Status.UP, loss));
		assertThat(aggregate).isEqualTo(Status.UP);
		assertThat(new SimpleHttpCodeStatusMapper().getStatusCode(aggregate)).isEqualTo(200);
		assertThat(new SimpleHttpCodeStatusMapper().getStatusCode(loss)).isEqualTo(200);
	}

	/**
	 * As docs/journal.md says: {@code management.endpoint.health.status.order} and
	 * {@code ...status.http-mapping.redis-data-loss=503}, for the endpoint or a group.
	 */
	@Test
	void anApplicationCanMakeALossFailTheEndpoint() {
		Status loss = new RedeqJournalHealthIndicator(journal(LOSS)).health().getStatus();
		Status aggregate = new SimpleStatusAggregator("redis-data-loss", "down", "out-of-service", "up", "unknown")
			.getAggregateStatus(Set.of(Status.UP, loss));
		assertThat(aggregate).isEqualTo(loss);
		assertThat(new SimpleHttpCodeStatusMapper(Map.of("redis-data-loss", 503)).getStatusCode(aggregate))
			.isEqualTo(503);
	}

	private static RedeqJournal journal(String loss) {
		RedeqJournal journal = mock(RedeqJournal.class);
		JournalWriter writer = mock(JournalWriter.class);
		given(journal.lossReason()).willReturn(loss);
		given(journal.writer()).willReturn(writer);
		return journal;
	}

}
