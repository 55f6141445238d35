package io.redeq.spring.boot.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.redeq.Delivery;
import io.redeq.RedeqAdmin;
import io.redeq.spring.RedeqListener;
import io.redeq.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A recurring job declared in {@code redeq.recurring.<id>.*}: declared at startup, its
 * occurrences reach the topic's {@code @RedeqListener} with the JSON payload and the tick
 * as due time, and the actuator endpoint lists and removes it.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=redeq", "redeq.recurring.tick.topic=report",
				"redeq.recurring.tick.every=1s", "redeq.recurring.tick.payload={\"name\":\"sales\"}" })
class RecurringPropertiesIntegrationTests {

	static final RedisServer redis = new RedisServer().start();

	private static final JsonMapper json = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@LocalServerPort
	int port;

	@Autowired
	RedeqAdmin admin;

	@Autowired
	Reports reports;

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
	void aRecurringJobOfTheConfigurationRunsItsTicksAndTheEndpointListsAndRemovesIt() throws Exception {
		await().atMost(Duration.ofSeconds(30)).until(() -> this.reports.deliveries.size() >= 2);
		assertThat(this.reports.names).allSatisfy((name) -> assertThat(name).isEqualTo("sales"));
		assertThat(this.reports.deliveries).allSatisfy((delivery) -> assertThat(delivery.id()).isEqualTo("tick"));
		long first = this.reports.deliveries.get(0).dueAt().toEpochMilli();
		assertThat(this.reports.deliveries.get(1).dueAt().toEpochMilli() - first).isEqualTo(1000);

		JsonNode listed = get("/actuator/redeq").get("recurring").get(0);
		assertThat(listed.get("topic").asString()).isEqualTo("report");
		assertThat(listed.get("id").asString()).isEqualTo("tick");
		assertThat(listed.get("every").asString()).isEqualTo("PT1S");
		assertThat(listed.get("payload").asString()).isEqualTo("{\"name\":\"sales\"}");
		assertThat(listed.get("nextTick").asString()).isNotBlank();

		JsonNode removed = post("/actuator/redeq/report/tick", "{\"action\":\"cancel-recurring\"}");
		assertThat(removed.get("affected").asLong()).isOne();
		assertThat(this.admin.recurring()).isEmpty();
		assertThat(get("/actuator/redeq").get("recurring").size()).isZero();
	}

	private JsonNode get(String path) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri(path)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private JsonNode post(String path, String body) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		Reports reports() {
			return new Reports();
		}

	}

	record Report(String name) {
	}

	static class Reports {

		final List<Delivery> deliveries = new CopyOnWriteArrayList<>();

		final List<String> names = new CopyOnWriteArrayList<>();

		@RedeqListener(topic = "report")
		void run(Report report, Delivery delivery) {
			this.names.add(report.name());
			this.deliveries.add(delivery);
		}

	}

}
