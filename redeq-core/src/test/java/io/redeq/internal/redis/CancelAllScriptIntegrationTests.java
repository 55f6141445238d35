package io.redeq.internal.redis;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.redeq.Job;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * cancel-all.lua on a real redis-server: a call sent again with the request id of one
 * that already ran (Lettuce does that after a reconnect when the first reply was lost)
 * answers the jobs the first run cancelled, though they are gone, so the caller's count
 * and the journal's rows stay exact.
 */
@RedisTest
class CancelAllScriptIntegrationTests {

	private final ScriptFixture fixture;

	CancelAllScriptIntegrationTests(RedisClient lettuce) {
		this.fixture = new ScriptFixture(lettuce);
	}

	@AfterEach
	void close() {
		this.fixture.close();
	}

	@Test
	void theSameRequestAgainAnswersWhatTheFirstRunCancelled() {
		List<String> ids = this.fixture.idsInBucket("mail", "m-", 4, 3);
		for (String id : ids.subList(0, 2)) {
			this.fixture.redeq.client()
				.schedule(Job.builder("mail").id(id).payload(1).delay(Duration.ofHours(1)).build());
		}
		List<String> jobKeys = ids.stream().map((id) -> KeySpace.jobKey("mail", id)).toList();

		List<String> first = this.fixture.await(this.fixture.store.cancelAll(4, "mail", jobKeys, "req-1"));
		List<String> again = this.fixture.await(this.fixture.store.cancelAll(4, "mail", jobKeys, "req-1"));
		List<String> another = this.fixture.await(this.fixture.store.cancelAll(4, "mail", jobKeys, "req-2"));

		assertThat(first).containsExactlyInAnyOrderElementsOf(jobKeys.subList(0, 2));
		assertThat(again).isEqualTo(first);
		assertThat(another).isEmpty();
		assertThat(this.fixture.redeq.admin().stats("mail").pending()).isZero();
	}

}
