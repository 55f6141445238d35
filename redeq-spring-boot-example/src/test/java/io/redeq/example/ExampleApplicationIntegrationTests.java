package io.redeq.example;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.test.RedisServer;
import io.redeq.test.RedisTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The example's story end to end over HTTP, against a test redis-server: an unpaid order
 * is cancelled by its timeout, a paid one is not, and a reminder that always fails ends
 * up as a dead letter that the API shows.
 */
@RedisTest
class ExampleApplicationIntegrationTests {

	private final RedisServer redis;

	private final HttpClient http = HttpClient.newHttpClient();

	private ConfigurableApplicationContext app;

	private String base;

	ExampleApplicationIntegrationTests(RedisServer redis) {
		this.redis = redis;
	}

	@BeforeEach
	void start() {
		this.app = new SpringApplicationBuilder(ExampleApplication.class).run("--server.port=0",
				"--spring.data.redis.host=" + this.redis.host(), "--spring.data.redis.port=" + this.redis.port(),
				"--redeq.example.embedded-redis=never", "--example.order.payment-timeout=2s",
				"--example.reminder.failure-rate=1.0", "--example.reminder.max-attempts=2",
				"--redeq.consumer.backoff.initial=100ms", "--redeq.consumer.backoff.jitter=0");
		this.base = "http://localhost:" + this.app.getEnvironment().getProperty("local.server.port");
	}

	@AfterEach
	void stop() {
		this.app.close();
	}

	@Test
	void unpaidOrderIsCancelledAndPaidOrderIsNot() throws Exception {
		String unpaid = post("/orders", "{\"item\":\"book\"}");
		String paid = post("/orders", "{\"item\":\"lamp\"}");
		assertThat(unpaid).contains("\"id\":1").contains("\"status\":\"AWAITING_PAYMENT\"");
		assertThat(paid).contains("\"id\":2");
		assertThat(this.app.getBean(RedeqClient.class).find("order.timeout", "order-1")).isPresent();

		assertThat(post("/orders/2/pay", "")).contains("\"status\":\"PAID\"");
		assertThat(this.app.getBean(RedeqClient.class).find("order.timeout", "order-2")).isEmpty();

		await().atMost(Duration.ofSeconds(15)).until(() -> get("/orders/1").contains("\"status\":\"CANCELLED\""));
		assertThat(get("/orders/2")).contains("\"status\":\"PAID\"");
		assertThat(this.app.getBean(RedeqClient.class).find("order.timeout", "order-1")).isEmpty();
	}

	@Test
	void reminderThatAlwaysFailsBecomesAVisibleDeadLetter() throws Exception {
		String created = post("/reminders", "{\"to\":\"ada\",\"text\":\"standup\",\"in\":\"0s\"}");
		String id = created.replaceAll(".*\"id\":\"([^\"]+)\".*", "$1");
		await().atMost(Duration.ofSeconds(15)).until(() -> get("/reminders/dead").contains(id));
		assertThat(get("/reminders/dead")).contains("mail server did not answer").contains("\"attempts\":2");
		assertThat(this.app.getBean(RedeqAdmin.class).stats("reminder").dead()).isEqualTo(1);
	}

	@Test
	void exposesHealthMetricsPrometheusAndTheRedeqEndpoint() throws Exception {
		post("/reminders", "{\"to\":\"ada\",\"text\":\"standup\",\"in\":\"0s\"}");
		await().atMost(Duration.ofSeconds(15)).until(() -> get("/actuator/redeq").contains("\"dead\":1"));
		assertThat(get("/actuator/redeq")).contains("\"topic\":\"reminder\"").contains("\"owned\":[");
		assertThat(get("/actuator/redeq/reminder")).contains("mail server did not answer");
		await().atMost(Duration.ofSeconds(10)).until(() -> get("/actuator/health/redeq").contains("\"status\":\"UP\""));
		assertThat(get("/actuator/metrics/redeq.jobs.dead")).contains("\"value\":1.0");
		assertThat(get("/actuator/prometheus")).contains("redeq_jobs_dead_total{")
			.contains("redeq_jobs_lateness_seconds_bucket{")
			.contains("redeq_jobs_pending{");
	}

	private String post(String path, String json) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.base + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(path + ": " + response.body()).isBetween(200, 299);
		return response.body();
	}

	private String get(String path) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create(this.base + path)).build(),
				HttpResponse.BodyHandlers.ofString());
		return response.body();
	}

}
