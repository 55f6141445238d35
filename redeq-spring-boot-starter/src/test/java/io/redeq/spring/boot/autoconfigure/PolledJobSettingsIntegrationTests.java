package io.redeq.spring.boot.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.redeq.DeadJob;
import io.redeq.JobInfo;
import io.redeq.JobState;
import io.redeq.PolledJob;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedeqClient#poll} on the client bean: a polled job follows the settings a
 * listener of its topic gets from configuration ({@code redeq.consumer.*},
 * {@code redeq.topics.<topic>.*}, the not-retryable exception classes).
 */
@RedisTest
class PolledJobSettingsIntegrationTests {

	private final ApplicationContextRunner runner;

	PolledJobSettingsIntegrationTests(RedisServer server) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedeqAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port(),
					"redeq.consumer.max-attempts=4", "redeq.consumer.backoff.initial=50ms",
					"redeq.consumer.backoff.jitter=0",
					"redeq.consumer.not-retryable=java.lang.IllegalArgumentException",
					"redeq.topics.report.once.max-attempts=1", "redeq.topics.report.quick.timeout=1s");
	}

	@Test
	void aPolledJobFollowsItsTopicsConfiguredSettings() {
		this.runner.run((context) -> {
			RedeqClient client = context.getBean(RedeqClient.class);
			RedeqAdmin admin = context.getBean(RedeqAdmin.class);

			// redeq.consumer.not-retryable: DEAD at once, 3 attempts left.
			client.schedule("report.strict", "x", Duration.ZERO);
			poll(client, "report.strict").fail(new NumberFormatException("not a number"));
			assertThat(admin.deadJobs("report.strict", 0, 10)).extracting(DeadJob::attempts).containsExactly(1);

			// redeq.topics.report.once.max-attempts=1: the first failure is the last.
			client.schedule("report.once", "x", Duration.ZERO);
			poll(client, "report.once").fail(new IllegalStateException("once"));
			assertThat(admin.stats("report.once").dead()).isEqualTo(1);

			// redeq.consumer.max-attempts=4 elsewhere: retried.
			String id = client.schedule("report.retried", "x", Duration.ZERO);
			poll(client, "report.retried").fail(new IllegalStateException("again"));
			assertThat(client.find("report.retried", id)).map(JobInfo::state)
				.hasValueSatisfying((state) -> assertThat(state).isIn(JobState.DELAYED, JobState.READY));

			// redeq.topics.report.quick.timeout=1s is the lease: delivered again.
			client.schedule("report.quick", "x", Duration.ZERO);
			PolledJob first = poll(client, "report.quick");
			PolledJob second = poll(client, "report.quick");
			assertThat(second.id()).isEqualTo(first.id());
			assertThat(second.attempt()).isEqualTo(2);
			second.ack();
		});
	}

	private static PolledJob poll(RedeqClient client, String topic) {
		return client.poll(topic, Duration.ofSeconds(20)).orElseThrow();
	}

}
