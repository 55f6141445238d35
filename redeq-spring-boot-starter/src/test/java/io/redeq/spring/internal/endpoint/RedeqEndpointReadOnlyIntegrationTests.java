package io.redeq.spring.internal.endpoint;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.spring.RedeqListener;
import io.redeq.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With {@code management.endpoint.redeq.access=read-only} (what the observability docs
 * recommend when the endpoint is exposed) the endpoint still shows dead jobs, and its
 * requeue and purge operations are gone: a POST changes nothing.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=redeq", "management.endpoint.redeq.access=read-only",
				"redeq.stats-refresh-interval=200ms" })
class RedeqEndpointReadOnlyIntegrationTests {

	static final RedisServer redis = new RedisServer().start();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@LocalServerPort
	int port;

	@Autowired
	RedeqClient client;

	@Autowired
	RedeqAdmin admin;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@Test
	void readsWorkAndWritesAreGone() throws Exception {
		String id = this.client.schedule("payment", "order-1", Duration.ZERO);
		await().atMost(Duration.ofSeconds(20)).until(() -> this.admin.stats("payment").dead() == 1);

		HttpResponse<String> page = send(HttpRequest.newBuilder(uri("/actuator/redeq/payment")).GET().build());
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.body()).contains(id);

		for (String path : new String[] { "/actuator/redeq/payment", "/actuator/redeq/payment/" + id }) {
			for (String action : new String[] { "requeue", "purge" }) {
				HttpResponse<String> write = send(HttpRequest.newBuilder(uri(path))
					.header("Content-Type", "application/json")
					.POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"" + action + "\"}"))
					.build());
				assertThat(write.statusCode()).as("POST %s %s", path, action).isBetween(400, 499);
			}
		}
		assertThat(this.admin.stats("payment").dead()).as("dead jobs untouched").isEqualTo(1);
	}

	private HttpResponse<String> send(HttpRequest request) throws Exception {
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		Payments payments() {
			return new Payments();
		}

	}

	static class Payments {

		@RedeqListener(topic = "payment", maxAttempts = "1")
		void charge(String order) {
			throw new IllegalStateException("card declined for " + order);
		}

	}

}
