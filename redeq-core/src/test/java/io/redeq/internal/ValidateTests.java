package io.redeq.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link Validate#topic}: the topics redeq accepts are the ones its keys can carry and
 * give back.
 */
class ValidateTests {

	@Test
	void aTopicOfOneToAHundredLettersDigitsDotsUnderscoresAndDashesIsAccepted() {
		assertThat(Validate.topic("a")).isEqualTo("a");
		assertThat(Validate.topic("Order.cancel_v2-eu")).isEqualTo("Order.cancel_v2-eu");
		assertThat(Validate.topic("9lives")).isEqualTo("9lives");
		String longest = "t".repeat(100);
		assertThat(Validate.topic(longest)).isEqualTo(longest);
	}

	@Test
	void anyOtherTopicIsRefusedNamingItAndTheForm() {
		for (String topic : new String[] { "t".repeat(101), "-start", ".start", "_start", "a:b", "a{b}", "a b",
				"caf\u00e9", "a/b", "a\u0000" }) {
			assertThatIllegalArgumentException().as(topic)
				.isThrownBy(() -> Validate.topic(topic))
				.withMessageContaining(topic.substring(0, Math.min(topic.length(), 20)))
				.withMessageContaining("1 to 100 characters from A-Z a-z 0-9 . _ -");
		}
		assertThatIllegalArgumentException().isThrownBy(() -> Validate.topic("")).withMessageContaining("blank");
		assertThatIllegalArgumentException().isThrownBy(() -> Validate.topic(null)).withMessageContaining("null");
	}

}
