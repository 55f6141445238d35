package io.redeq;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * Bad input at the entry points not covered elsewhere: the builder, subscribe and admin.
 * Every refusal names the value and what is allowed.
 */
@RedisTest
class BadInputIntegrationTests {

	private final RedisClient lettuce;

	private Redeq redeq;

	BadInputIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@BeforeEach
	void start() {
		this.redeq = Redeq.builder(this.lettuce).migratorEnabled(false).build();
	}

	@AfterEach
	void stop() {
		this.redeq.close();
	}

	@Test
	void builderRefusesOutOfRangeSettingsAndABadInstanceId() {
		// Each setting's rule is tested in RedeqOptionsTests; the engine's builder
		// shares its setters.
		Redeq.Builder builder = Redeq.builder(this.lettuce);
		assertThatIllegalArgumentException().isThrownBy(() -> builder.buckets(10))
			.withMessage("redeq.buckets must be a power of two between 1 and 1024, but was 10");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.instanceId("a:b"))
			.withMessageContaining("instanceId");
		assertThatNullPointerException().isThrownBy(() -> Redeq.builder(null)).withMessageContaining("Lettuce client");
	}

	@Test
	void builderStartsFromGivenOptionsAndAppliesLaterSetters() {
		RedeqOptions given = RedeqOptions.builder().prefix("given").buckets(4).build();
		RedeqOptions built = Redeq.builder(this.lettuce).options(given).concurrency(3).options();
		assertThat(built.prefix()).isEqualTo("given");
		assertThat(built.buckets()).isEqualTo(4);
		assertThat(built.concurrency()).isEqualTo(3);
	}

	@Test
	void subscribeRefusesBadTopicsMissingPartsAndASecondHandler() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.redeq.subscribe("bad topic", String.class, (p, d) -> {
			}))
			.withMessageContaining("'bad topic'");
		assertThatNullPointerException().isThrownBy(() -> this.redeq.subscribe("t", String.class, null))
			.withMessageContaining("handler");
		assertThatIllegalArgumentException().isThrownBy(() -> SubscriptionOptions.builder().concurrency(0))
			.withMessageContaining("concurrency must be at least 1, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> SubscriptionOptions.builder().lease(Duration.ZERO))
			.withMessageContaining("lease");
		this.redeq.subscribe("once", String.class, (p, d) -> {
		});
		assertThatIllegalStateException().isThrownBy(() -> this.redeq.subscribe("once", String.class, (p, d) -> {
		})).withMessageContaining("'once' already has a subscription");
	}

	@Test
	void adminRefusesBadPagesTopicsAndIds() {
		RedeqAdmin admin = this.redeq.admin();
		assertThatIllegalArgumentException().isThrownBy(() -> admin.deadJobs("t", -1, 10))
			.withMessageContaining("offset must be at least 0, but was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> admin.deadJobs("t", 0, 0))
			.withMessageContaining("limit must be between 1 and 1000, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> admin.deadJobs("t", 0, 5000))
			.withMessageContaining("5000");
		assertThatIllegalArgumentException().isThrownBy(() -> admin.stats("")).withMessageContaining("blank");
		assertThatIllegalArgumentException().isThrownBy(() -> admin.requeueDead("t", " x"))
			.withMessageContaining("' x'");
		assertThatIllegalArgumentException().isThrownBy(() -> admin.purgeDead("{x}")).withMessageContaining("'{x}'");
		assertThatNullPointerException().isThrownBy(() -> this.redeq.client().scheduleAll(null))
			.withMessageContaining("jobs");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.redeq.client()
				.scheduleAll(List.of(Job.builder("ok").payload(1).build(), Job.builder("not ok").payload(2).build())))
			.withMessageContaining("'not ok'");
		assertThat(admin.topics()).as("nothing of a refused batch was written").doesNotContain("ok");
	}

}
