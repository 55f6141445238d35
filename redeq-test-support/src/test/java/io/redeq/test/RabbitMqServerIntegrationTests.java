package io.redeq.test;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RabbitMqServer} against the real broker: a node of its own on a free port, taken
 * away and brought back on the same port, and nothing of it left once closed.
 */
class RabbitMqServerIntegrationTests {

	@Test
	void startsStopsAndRestartsANodeOfItsOwnOnAFreePort() {
		RabbitMqServer rabbit = new RabbitMqServer();
		try (rabbit) {
			rabbit.start();
			int port = rabbit.port();
			assertThat(port).isNotEqualTo(5672);
			assertThat(TcpPorts.isOpen(rabbit.host(), port)).isTrue();
			assertThat(rabbit.log()).contains("redeq-test-" + port + "@localhost");

			rabbit.stop();
			assertThat(rabbit.isRunning()).isFalse();
			assertThat(TcpPorts.isOpen(rabbit.host(), port)).isFalse();

			rabbit.start();
			assertThat(rabbit.port()).isEqualTo(port);
			assertThat(TcpPorts.isOpen(rabbit.host(), port)).isTrue();
		}
		assertThat(rabbit.isRunning()).isFalse();
	}

}
