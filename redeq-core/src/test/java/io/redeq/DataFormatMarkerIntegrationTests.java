package io.redeq;

import java.time.Duration;
import java.util.Map;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;

import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The data format recorded in Redis is checked when an engine starts: an instance records
 * its format in a prefix that has none, and refuses, changing nothing, a prefix written
 * by a newer redeq, whose jobs it could misread or strand.
 */
@RedisTest
class DataFormatMarkerIntegrationTests {

	private final RedisClient lettuce;

	DataFormatMarkerIntegrationTests(RedisClient lettuce) {
		this.lettuce = lettuce;
	}

	@Test
	void anEngineRecordsItsDataFormatInAFreshPrefix() {
		try (Redeq redeq = Redeq.builder(this.lettuce).prefix("fresh").build();
				StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			assertThat(connection.sync().hgetall("fresh:meta")).containsEntry("format", "3")
				.containsEntry("buckets", Integer.toString(RedeqOptions.DEFAULT_BUCKETS));
		}
	}

	@Test
	void anEngineRefusesToStartOnDataOfANewerFormatAndChangesNothing() {
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			redis.hset("newer:meta", Map.of("format", "4", "buckets", "4"));
			redis.set("newer:something-format-4-wrote", "x");

			Redeq redeq = Redeq.builder(this.lettuce).prefix("newer").buckets(16).autoStartup(false).build();
			try {
				assertThatExceptionOfType(RedeqException.class).isThrownBy(redeq::start)
					.withMessageContaining("prefix 'newer'")
					.withMessageContaining("data format 4")
					.withMessageContaining("format 3")
					.withMessageContaining("newer version of redeq");
				// It was refused before the bucket count (which differs too)
				// was looked at.
				assertThat(redis.hgetall("newer:meta")).isEqualTo(Map.of("format", "4", "buckets", "4"));
				assertThat(redis.keys("newer*")).containsExactlyInAnyOrder("newer:meta",
						"newer:something-format-4-wrote");
				assertThatExceptionOfType(RedeqException.class).as("and again on a second try")
					.isThrownBy(redeq::start);
			}
			finally {
				redeq.close();
			}
		}
	}

	@Test
	void aPrefixOfTheSameFormatStartsAsBefore() {
		try (StatefulRedisConnection<String, String> connection = this.lettuce.connect()) {
			connection.sync().hset("same:meta", Map.of("format", "3", "buckets", "16"));
		}
		try (Redeq redeq = Redeq.builder(this.lettuce).prefix("same").buckets(16).build()) {
			String id = redeq.client().schedule("t", "payload", Duration.ofHours(1));
			assertThat(redeq.client().find("t", id)).isPresent();
		}
	}

}
