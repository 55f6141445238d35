package io.redeq.internal.history;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.redeq.internal.JobEvents;
import io.redeq.internal.redis.KeySpace;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link JobHistory} as the decorator of the engine's other job events.
 */
class JobHistoryTests {

	/**
	 * Every event must reach the metrics behind the history: a JobEvents method added
	 * later and not forwarded here would silently stop its meter.
	 */
	@Test
	void forwardsEveryEvent() {
		for (Method method : JobEvents.class.getDeclaredMethods()) {
			if (Modifier.isStatic(method.getModifiers())) {
				continue;
			}
			assertThat(JobHistory.class.getDeclaredMethods()).as("JobHistory overrides %s", method.getName())
				.anySatisfy((own) -> {
					assertThat(own.getName()).isEqualTo(method.getName());
					assertThat(own.getParameterTypes()).isEqualTo(method.getParameterTypes());
				});
		}
		List<String> seen = new ArrayList<>();
		JobEvents next = new JobEvents() {

			@Override
			public void scheduled(String topic) {
				seen.add("scheduled " + topic);
			}

			@Override
			public void dead(String topic) {
				seen.add("dead " + topic);
			}

			@Override
			public void started(String topic, Duration lateness) {
				seen.add("started " + topic);
			}

		};
		JobHistory history = new JobHistory(new KeySpace("redeq", 16), null, next, Clock.systemUTC());
		history.scheduled("mail");
		history.started("mail", Duration.ZERO);
		history.dead("mail");
		assertThat(seen).containsExactly("scheduled mail", "started mail", "dead mail");
	}

}
