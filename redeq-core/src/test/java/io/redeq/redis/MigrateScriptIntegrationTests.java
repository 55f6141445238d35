package io.redeq.redis;

import java.time.Instant;
import java.util.List;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * migrate.lua on a real redis-server: whether one job is due (the usual call, answered
 * from one read of the due set's first two entries) or more than a batch, it moves the
 * due jobs, no more than the batch, and reports the head that remains, from which the
 * migrator plans its next wake-up.
 */
@RedisTest
class MigrateScriptIntegrationTests {

	private static final int BUCKET = 7;

	private final ScriptFixture fixture;

	private final Redeq producer;

	private final RedisJobStore store;

	MigrateScriptIntegrationTests(RedisClient lettuce) {
		this.fixture = new ScriptFixture(lettuce);
		this.producer = this.fixture.redeq;
		this.store = this.fixture.store;
	}

	@AfterEach
	void close() {
		this.fixture.close();
	}

	@Test
	void movesWhatIsDueUpToTheBatchAndReportsTheHeadLeft() {
		List<String> ids = this.fixture.idsInBucket("mail", "m", BUCKET, 7);
		long now = System.currentTimeMillis();
		long later = now + 3_600_000;
		schedule(ids.get(0), now - 3000);
		schedule(ids.get(1), now - 2000);
		schedule(ids.get(5), later);

		assertThat(migrate(1)).as("two due, batch of one").satisfies((r) -> {
			assertThat(r.migrated()).isEqualTo(1);
			assertThat(r.nextDue()).isEqualTo(now - 2000);
		});
		assertThat(migrate(100)).as("one due, a later head").satisfies((r) -> {
			assertThat(r.migrated()).isEqualTo(1);
			assertThat(r.nextDue()).isEqualTo(later);
		});
		assertThat(migrate(100)).as("nothing due").satisfies((r) -> {
			assertThat(r.migrated()).isZero();
			assertThat(r.nextDue()).isEqualTo(later);
		});

		schedule(ids.get(2), now - 1000);
		schedule(ids.get(3), now - 900);
		schedule(ids.get(4), now - 800);
		assertThat(migrate(2)).as("three due, batch of two").satisfies((r) -> {
			assertThat(r.migrated()).isEqualTo(2);
			assertThat(r.nextDue()).isEqualTo(now - 800);
		});
		assertThat(migrate(100)).as("one due, a later head").satisfies((r) -> {
			assertThat(r.migrated()).isEqualTo(1);
			assertThat(r.nextDue()).isEqualTo(later);
		});
		assertThat(this.producer.admin().stats("mail").ready()).isEqualTo(5);

		this.producer.client().cancel("mail", ids.get(5));
		assertThat(migrate(100)).as("an empty due set").satisfies((r) -> {
			assertThat(r.migrated()).isZero();
			assertThat(r.nextDue()).isEqualTo(-1);
		});
		schedule(ids.get(6), now - 100);
		assertThat(migrate(100)).as("one due and nothing after it").satisfies((r) -> {
			assertThat(r.migrated()).isEqualTo(1);
			assertThat(r.nextDue()).isEqualTo(-1);
		});
	}

	private void schedule(String id, long dueAt) {
		this.producer.client()
			.schedule(Job.builder("mail").id(id).payload(id).dueAt(Instant.ofEpochMilli(dueAt)).build());
	}

	private MigrateResult migrate(int batch) {
		return this.store.migrate(BUCKET, batch, false, "", 10_000, 0);
	}

}
