package io.redeq.benchmark;

import org.junit.jupiter.api.Test;

import io.redeq.internal.codec.JacksonPayloadCodec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RedeqContenderTests {

	@Test
	void redeqStoresTheSameJsonTextThePeersAreGiven() {
		String payload = "\"" + "x".repeat(98) + "\"";

		String stored = new JacksonPayloadCodec(null).write(RedeqContender.valueOf(payload));

		assertThat(stored).isEqualTo(payload).hasSize(100);
	}

	@Test
	void aPayloadThatIsNoPlainJsonStringIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> RedeqContender.valueOf("{\"a\":1}"))
			.withMessageContaining("{\"a\":1}");
		assertThatIllegalArgumentException().isThrownBy(() -> RedeqContender.valueOf("\"a\\\"b\""));
	}

}
