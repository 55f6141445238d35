package io.redeq.example;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.redeq.RedeqAdmin;
import io.redeq.test.RabbitMqServer;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The example's profile {@code rabbit} as its application.yml configures it, against a
 * test redis-server and a test RabbitMQ node: a push reminder scheduled over HTTP reaches
 * the example's queue at its due time with redeq's headers, and its job is gone.
 */
@RedisTest
class PushForwardingIntegrationTests {

	private final RedisServer redis;

	private final HttpClient http = HttpClient.newHttpClient();

	PushForwardingIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	@Test
	void aPushReminderGoesToRabbitMqAtItsDueTime() throws Exception {
		try (RabbitMqServer rabbit = new RabbitMqServer().start();
				ConfigurableApplicationContext app = new SpringApplicationBuilder(ExampleApplication.class).run(
						"--spring.profiles.active=rabbit", "--server.port=0",
						"--spring.data.redis.host=" + this.redis.host(),
						"--spring.data.redis.port=" + this.redis.port(), "--redeq.example.embedded-redis=never",
						"--spring.rabbitmq.host=" + rabbit.host(), "--spring.rabbitmq.port=" + rabbit.port())) {
			// The test reads the queue itself rather than the example's push service.
			app.getBean(RabbitListenerEndpointRegistry.class).stop();
			String base = "http://localhost:" + app.getEnvironment().getProperty("local.server.port");
			HttpResponse<String> response = this.http
				.send(HttpRequest.newBuilder(URI.create(base + "/push/reminders?user=ada&text=Stand-up&in=500ms"))
					.POST(HttpRequest.BodyPublishers.noBody())
					.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(response.statusCode()).as(response.body()).isEqualTo(201);

			RabbitTemplate template = app.getBean(RabbitTemplate.class);
			Message received = await().atMost(Duration.ofSeconds(15))
				.until(() -> template.receive("push.reminders"), Objects::nonNull);
			assertThat(new String(received.getBody(), StandardCharsets.UTF_8))
				.isEqualTo("{\"user\":\"ada\",\"text\":\"Stand-up\"}");
			assertThat(received.getMessageProperties().getHeaders()).containsEntry("redeq-topic", "push.remind")
				.containsEntry("redeq-attempt", 1)
				.containsKeys("redeq-id", "redeq-due-at");
			RedeqAdmin admin = app.getBean(RedeqAdmin.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> admin.stats("push.remind").pending() == 0);
		}
	}

}
