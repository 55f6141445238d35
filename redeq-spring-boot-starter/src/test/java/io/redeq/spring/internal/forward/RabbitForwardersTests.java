package io.redeq.spring.internal.forward;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RabbitForwarders}' bound on the wait for a publisher confirm.
 */
class RabbitForwardersTests {

	@Test
	void theConfirmWaitEndsATenthOrAtMostASecondBeforeTheHandlerTimeout() {
		assertThat(RabbitForwarders.confirmTimeout(Duration.ofMinutes(5))).isEqualTo(Duration.ofSeconds(299));
		assertThat(RabbitForwarders.confirmTimeout(Duration.ofSeconds(5))).isEqualTo(Duration.ofMillis(4500));
		assertThat(RabbitForwarders.confirmTimeout(Duration.ofMillis(100))).isEqualTo(Duration.ofMillis(90));
	}

}
