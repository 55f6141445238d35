package io.redeq.spring.internal.endpoint;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

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

import io.redeq.Job;
import io.redeq.Redeq;
import io.redeq.RedeqAdmin;
import io.redeq.RedeqClient;
import io.redeq.spring.RedeqListener;
import io.redeq.test.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code redeq} endpoint and health through real HTTP calls to a web application on a
 * random port, against a real redis-server.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=health,redeq",
				"management.endpoint.health.show-details=always", "redeq.stats-refresh-interval=200ms",
				"redeq.health.ready-wait-threshold=1s" })
class RedeqEndpointIntegrationTests {

	static final RedisServer redis = new RedisServer().start();

	private static final JsonMapper json = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@LocalServerPort
	int port;

	@Autowired
	RedeqClient client;

	@Autowired
	RedeqAdmin admin;

	@Autowired
	Redeq redeq;

	@Autowired
	Payments payments;

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
	void readsOverviewAndDeadJobsThenRequeuesAndPurgesThem() throws Exception {
		String first = this.client.schedule("payment", "order-1", Duration.ZERO);
		this.client.schedule("payment", "order-2", Duration.ZERO);
		this.client.schedule("payment", "order-3", Duration.ZERO);
		this.client.schedule("later", "x", Duration.ofHours(1));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.admin.stats("payment").dead() == 3);

		JsonNode overview = get("/actuator/redeq", 200);
		assertThat(overview.get("instanceId").asString()).isEqualTo(this.redeq.instanceId());
		assertThat(overview.get("redisReachable").asBoolean()).isTrue();
		assertThat(overview.at("/buckets/count").asInt()).isEqualTo(16);
		assertThat(overview.at("/buckets/owned").size()).isEqualTo(16);
		assertThat(overview.at("/topics/payment/dead").asLong()).isEqualTo(3);
		assertThat(overview.at("/topics/later/delayed").asLong()).isEqualTo(1);
		JsonNode listener = overview.get("listeners").get(0);
		assertThat(listener.get("topic").asString()).isEqualTo("payment");
		assertThat(listener.get("concurrency").asInt()).isEqualTo(2);
		assertThat(listener.get("maxAttempts").asInt()).isEqualTo(1);
		assertThat(listener.get("running").asBoolean()).isTrue();

		JsonNode page = get("/actuator/redeq/payment?limit=2", 200);
		assertThat(page.get("dead").asLong()).isEqualTo(3);
		assertThat(page.get("jobs").size()).isEqualTo(2);
		assertThat(page.at("/jobs/0/lastError").asString()).contains("card declined");
		assertThat(get("/actuator/redeq/payment?offset=2&limit=2", 200).get("jobs").size()).isEqualTo(1);

		this.payments.failing.set(false);
		JsonNode one = post("/actuator/redeq/payment/" + first, "{\"action\":\"requeue\"}", 200);
		assertThat(one.get("affected").asLong()).isEqualTo(1);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.admin.stats("payment").dead() == 2);
		assertThat(this.client.find("payment", first)).as("completed").isEmpty();

		JsonNode all = post("/actuator/redeq/payment", "{\"action\":\"requeue\"}", 200);
		assertThat(all.get("affected").asLong()).isEqualTo(2);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.admin.stats("payment").pending() == 0);
		assertThat(this.admin.stats("payment").dead()).isZero();

		this.payments.failing.set(true);
		this.client.schedule("payment", "order-4", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.admin.stats("payment").dead() == 1);
		assertThat(post("/actuator/redeq/payment", "{\"action\":\"purge\"}", 200).get("affected").asLong())
			.isEqualTo(1);
		assertThat(this.admin.stats("payment").dead()).isZero();

		post("/actuator/redeq/payment", "{\"action\":\"drop-everything\"}", 400);
		post("/actuator/redeq/payment/" + first, "{\"action\":\"purge\"}", 400);
	}

	@Test
	void cancelsEveryDelayedOrReadyJobOfATopic() throws Exception {
		for (int i = 0; i < 3; i++) {
			this.client.schedule(Job.builder("sweep").id("d-" + i).payload(i).delay(Duration.ofHours(1)).build());
		}
		this.client.schedule(Job.builder("sweep").id("r-1").payload(1).build());
		this.client.schedule(Job.builder("sweep").id("r-2").payload(2).build());
		await().atMost(Duration.ofSeconds(10)).until(() -> this.admin.stats("sweep").ready() == 2);

		assertThat(post("/actuator/redeq/sweep", "{\"action\":\"purge-delayed\"}", 200).get("affected").asLong())
			.isEqualTo(3);
		assertThat(this.admin.stats("sweep").delayed()).isZero();
		assertThat(this.admin.stats("sweep").ready()).isEqualTo(2);
		assertThat(post("/actuator/redeq/sweep", "{\"action\":\"purge-ready\"}", 200).get("affected").asLong())
			.isEqualTo(2);
		assertThat(this.admin.stats("sweep").pending()).isZero();
		post("/actuator/redeq/sweep", "{\"action\":\"purge-running\"}", 400);
	}

	@Test
	void pausesResumesAndPromotesThroughTheEndpointAndHealthTellsAPauseFromAStuckConsumer() throws Exception {
		assertThat(post("/actuator/redeq/report", "{\"action\":\"pause\"}", 200).get("affected").asLong()).isOne();
		assertThat(this.admin.isPaused("report")).isTrue();
		this.client.schedule(Job.builder("report").id("r-1").payload("daily").build());
		this.client.schedule(Job.builder("report").id("r-2").payload("weekly").delay(Duration.ofHours(1)).build());
		// READY longer than the ready-wait threshold (1s), on purpose: health stays UP.
		await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
			JsonNode overview = get("/actuator/redeq", 200);
			assertThat(overview.at("/topics/report/paused").asBoolean()).isTrue();
			assertThat(overview.at("/topics/report/oldestReadyWaitMillis").asLong()).isGreaterThan(1500);
		});
		JsonNode health = get("/actuator/health/redeq", 200);
		assertThat(health.get("status").asString()).isEqualTo("UP");
		assertThat(health.at("/details/pausedTopics/0").asString()).isEqualTo("report");
		assertThat(health.at("/details/topics/report/paused").asBoolean()).isTrue();
		assertThat(this.reports.received).isEmpty();

		assertThat(post("/actuator/redeq/report/r-2", "{\"action\":\"promote\"}", 200).get("affected").asLong())
			.isOne();
		assertThat(post("/actuator/redeq/report/r-2", "{\"action\":\"promote\"}", 200).get("affected").asLong())
			.as("no longer DELAYED")
			.isZero();
		post("/actuator/redeq/report", "{\"action\":\"resume\"}", 200);
		await().atMost(Duration.ofSeconds(15)).until(() -> this.reports.received.size() == 2);
		assertThat(this.admin.isPaused("report")).isFalse();
	}

	@Test
	void healthShowsRedeqOverHttp() throws Exception {
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			JsonNode health = get("/actuator/health/redeq", 200);
			assertThat(health.get("status").asString()).isEqualTo("UP");
			assertThat(health.at("/details/instanceId").asString()).isEqualTo(this.redeq.instanceId());
		});
	}

	private JsonNode get(String path, int status) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri(path)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
		return json.readTree(response.body());
	}

	private JsonNode post(String path, String body, int status) throws Exception {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
		return (status == 200) ? json.readTree(response.body()) : json.nullNode();
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

		@Bean
		Reports reports() {
			return new Reports();
		}

	}

	static class Reports {

		final List<String> received = new CopyOnWriteArrayList<>();

		@RedeqListener(topic = "report")
		void build(String name) {
			this.received.add(name);
		}

	}

	static class Payments {

		final AtomicBoolean failing = new AtomicBoolean(true);

		@RedeqListener(topic = "payment", maxAttempts = "1", concurrency = "2")
		void charge(String order) {
			if (this.failing.get()) {
				throw new IllegalStateException("card declined for " + order);
			}
		}

	}

}
