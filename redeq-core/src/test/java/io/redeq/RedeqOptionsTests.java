package io.redeq;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.redeq.internal.InvalidValueException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link RedeqOptions}: its defaults are the documented ones, and every setter
 * refuses what is not allowed, naming the key, the value and the limit.
 */
class RedeqOptionsTests {

	@Test
	void defaultsAreTheDocumentedValues() {
		RedeqOptions options = RedeqOptions.builder().build();
		assertThat(options.prefix()).isEqualTo("redeq");
		assertThat(options.buckets()).isEqualTo(16);
		assertThat(options.maxPending()).isEqualTo(1_000_000);
		assertThat(options.maxPayloadSize()).isEqualTo(512 * 1024);
		assertThat(options.migratorEnabled()).isTrue();
		assertThat(options.batchSize()).isEqualTo(1000);
		assertThat(options.sweepInterval()).isEqualTo(Duration.ofSeconds(1));
		assertThat(options.lockTtl()).isEqualTo(Duration.ofSeconds(10));
		assertThat(options.concurrency()).isEqualTo(1);
		assertThat(options.prefetchFor(4)).as("64 jobs per handler unless set").isEqualTo(256);
		assertThat(options.prefetchFor(1_000)).as("at most the largest prefetch").isEqualTo(RedeqOptions.MAX_PREFETCH);
		assertThat(options.mutate().prefetch(0).build().prefetchFor(4)).isZero();
		assertThat(options.timeout()).isEqualTo(Duration.ofMinutes(5));
		assertThat(options.maxAttempts()).isEqualTo(3);
		assertThat(options.backoff()).isEqualTo(new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(10), 0.2));
		assertThat(options.shutdownTimeout()).isEqualTo(Duration.ofSeconds(20));
		assertThat(options.deadLetterRetention()).isEqualTo(Duration.ofDays(7));
		// How an idle consumer waits, as the README documents it.
		assertThat(options.blocking()).isTrue();
		assertThat(options.pollInterval()).isEqualTo(Duration.ofSeconds(5));
		assertThat(options.proxyMode()).isFalse();
		assertThat(options.blocksInRedis()).isTrue();
		assertThat(options.commandTimeout()).isEqualTo(Duration.ofSeconds(10));
		assertThat(options.statsRefreshInterval()).isEqualTo(Duration.ofSeconds(5));
		assertThat(options.waitReplicas()).isZero();
		assertThat(options.waitTimeout()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void mutateKeepsEverySettingAndLeavesTheOriginalAlone() {
		RedeqOptions original = RedeqOptions.builder()
			.prefix("shop")
			.buckets(4)
			.maxPending(500)
			.maxPayloadSize(2048)
			.migratorEnabled(false)
			.batchSize(50)
			.sweepInterval(Duration.ofSeconds(3))
			.lockTtl(Duration.ofSeconds(30))
			.concurrency(7)
			.timeout(Duration.ofSeconds(45))
			.maxAttempts(9)
			.backoff(new Backoff(Duration.ofSeconds(2), 3.0, Duration.ofMinutes(1), 0.0))
			.blocking(false)
			.pollInterval(Duration.ofMillis(250))
			.proxyMode(true)
			.shutdownTimeout(Duration.ofSeconds(4))
			.deadLetterRetention(Duration.ofDays(1))
			.commandTimeout(Duration.ofSeconds(3))
			.statsRefreshInterval(Duration.ofSeconds(2))
			.waitReplicas(1)
			.waitTimeout(Duration.ofMillis(200))
			.build();
		RedeqOptions copy = original.mutate().build();
		assertThat(copy).usingRecursiveComparison().isEqualTo(original);
		assertThat(copy.toString()).isEqualTo(original.toString()).contains("prefix=shop", "waitTimeout=PT0.2S");
		RedeqOptions changed = original.mutate().buckets(8).build();
		assertThat(changed.buckets()).isEqualTo(8);
		assertThat(original.buckets()).isEqualTo(4);
	}

	@Test
	void proxyModeForbidsBlockingWhateverBlockingSays() {
		assertThat(RedeqOptions.builder().proxyMode(true).blocking(true).build().blocksInRedis()).isFalse();
		assertThat(RedeqOptions.builder().proxyMode(false).blocking(false).build().blocksInRedis()).isFalse();
		assertThat(RedeqOptions.builder().proxyMode(true).build().toString()).contains("proxyMode=true");
	}

	@Test
	void capacityPerBucketRoundsUpAndKeepsUnlimited() {
		assertThat(RedeqOptions.builder().maxPending(1000).buckets(16).build().capacityPerBucket()).isEqualTo(63);
		assertThat(RedeqOptions.builder().maxPending(3).buckets(16).build().capacityPerBucket()).isEqualTo(1);
		assertThat(RedeqOptions.builder().maxPending(0).build().capacityPerBucket()).isZero();
	}

	@Test
	void settersRefuseEveryOutOfRangeValue() {
		RedeqOptions.Builder builder = RedeqOptions.builder();
		assertThatIllegalArgumentException().isThrownBy(() -> builder.buckets(10))
			.withMessage("redeq.buckets must be a power of two between 1 and 1024, but was 10");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.buckets(2048)).withMessageContaining("2048");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.prefix("a b"))
			.withMessage("redeq.prefix must be 1 to 50 characters from A-Z a-z 0-9 . _ -, but was 'a b'");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.prefix("x".repeat(51)))
			.withMessageContaining("redeq.prefix");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.maxPending(-1))
			.withMessage("redeq.max-pending must be at least 0, but was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.maxPayloadSize(0))
			.withMessage("redeq.max-payload-size must be at least 1, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.batchSize(5001))
			.withMessage("redeq.migrator.batch-size must be between 1 and 5000, but was 5001");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.sweepInterval(Duration.ofSeconds(-1)))
			.withMessage("redeq.migrator.sweep-interval must be a positive duration, but was PT-1S");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.lockTtl(Duration.ofMillis(100)))
			.withMessage("redeq.migrator.lock-ttl must be at least 300ms, but was PT0.1S");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.concurrency(0))
			.withMessage("redeq.consumer.concurrency must be at least 1, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.prefetch(-1))
			.withMessage("redeq.consumer.prefetch must be between 0 and 10000, but was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.timeout(Duration.ZERO))
			.withMessage("redeq.consumer.timeout must be a positive duration, but was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.maxAttempts(0))
			.withMessageContaining("redeq.consumer.max-attempts");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.pollInterval(Duration.ZERO))
			.withMessageContaining("redeq.consumer.poll-interval");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.shutdownTimeout(Duration.ofSeconds(-5)))
			.withMessage("redeq.shutdown-timeout must be zero or a positive duration, but was PT-5S");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.deadLetterRetention(Duration.ZERO))
			.withMessageContaining("redeq.dead-letter.retention");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.commandTimeout(Duration.ZERO))
			.withMessageContaining("redeq.command-timeout");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.statsRefreshInterval(Duration.ZERO))
			.withMessageContaining("redeq.stats-refresh-interval");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.waitReplicas(-1))
			.withMessageContaining("redeq.durability.wait-replicas");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.waitTimeout(Duration.ZERO))
			.withMessageContaining("redeq.durability.wait-timeout");
		assertThat(builder.build()).usingRecursiveComparison()
			.as("a refused value leaves the builder as it was")
			.isEqualTo(RedeqOptions.builder().build());
	}

	@Test
	void refusalsKeepNameValueAndReasonApart() {
		assertThatExceptionOfType(InvalidValueException.class).isThrownBy(() -> RedeqOptions.builder().buckets(10))
			.satisfies((ex) -> {
				assertThat(ex.name()).isEqualTo("redeq.buckets");
				assertThat(ex.value()).isEqualTo(10);
				assertThat(ex.reason()).isEqualTo("must be a power of two between 1 and 1024");
			});
	}

}
